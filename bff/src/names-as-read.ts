/** Cyrillic and Greek letters that read as a Latin one. */
const SCRIPT_LOOK_ALIKES: Record<string, string> = {
  а: 'a', е: 'e', ё: 'e', о: 'o', р: 'p', с: 'c', х: 'x', у: 'y', і: 'i', ї: 'i', ӏ: 'l', ԁ: 'd', ɗ: 'd',
  α: 'a', ε: 'e', ο: 'o', ρ: 'p', ι: 'i', ν: 'v',
};

/** Strokes and digits that read as a letter inside a word ("Redl1ne", "Red|ine", "Redlin3"). */
const STROKE_LOOK_ALIKES: Record<string, string> = { i: 'l', ı: 'l', ℓ: 'l', '1': 'l', '|': 'l', '!': 'l', '0': 'o', '3': 'e' };

const folded = (text: string, table: Record<string, string>) => text.replace(/./gsu, (character) => table[character] ?? character);

/**
 * A person's name as it reads on a page: "Bob", "BOB", fullwidth "ｂｏｂ" and "bоb" with a
 * Cyrillic о are one name to an administrator choosing whom to revoke. Digits and accents stay
 * ("alice2", "José" are names of their own).
 */
export const personNameAsRead = (name: string): string => folded(name.normalize('NFKC').toLowerCase(), SCRIPT_LOOK_ALIKES);

/** A word as it reads, to find one name posing as another inside a longer one: accents, case, look-alikes and everything but letters dropped. */
export const wordAsRead = (text: string): string =>
  folded(folded(text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase(), SCRIPT_LOOK_ALIKES), STROKE_LOOK_ALIKES).replace(/[^a-z]/g, '');
