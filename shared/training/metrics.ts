/** Ranking metrics for a binary detector: positives are machine-written. */

export interface Scored {
  score: number;
  positive: boolean;
}

/** Area under the ROC curve; tied scores count half (Mann–Whitney U). NaN without both classes. */
export function auroc(items: readonly Scored[]): number {
  const sorted = [...items].sort((a, b) => a.score - b.score);
  let positives = 0;
  let negatives = 0;
  let rankSum = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j]!.score === sorted[i]!.score) j++;
    const meanRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) {
      if (sorted[k]!.positive) {
        positives++;
        rankSum += meanRank;
      } else negatives++;
    }
    i = j;
  }
  if (positives === 0 || negatives === 0) return Number.NaN;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/**
 * Share of positives caught at the strictest threshold that flags at most `fpr` of the
 * negatives (a score strictly above the threshold is flagged).
 */
export function tprAtFpr(items: readonly Scored[], fpr: number): number {
  const negatives = items.filter((item) => !item.positive).map((item) => item.score).sort((a, b) => b - a);
  const positives = items.filter((item) => item.positive);
  if (negatives.length === 0 || positives.length === 0) return Number.NaN;
  const allowed = Math.floor(fpr * negatives.length);
  // Flag scores above the (allowed+1)-th highest negative score.
  const threshold = negatives[allowed] ?? Number.NEGATIVE_INFINITY;
  return positives.filter((item) => item.score > threshold).length / positives.length;
}

/** Share of items on the right side of `threshold`. */
export function accuracyAt(items: readonly Scored[], threshold: number): number {
  if (items.length === 0) return Number.NaN;
  return items.filter((item) => item.score > threshold === item.positive).length / items.length;
}
