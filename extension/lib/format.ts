/**
 * A sentence score for people: two decimals, rounded down, so that a 0.997 reads "0.99"
 * and never suggests the certainty of "1.00".
 */
export function formatScore(score: number): string {
  return (Math.floor(score * 100) / 100).toFixed(2);
}
