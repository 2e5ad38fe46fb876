/**
 * Characters that change how the rest of a line reads or that cannot be seen: direction
 * overrides and isolates (U+202E reverses the text after it), zero-width and other format
 * characters, controls (a NUL, which PostgreSQL refuses in text), line and paragraph breaks,
 * lone surrogates, private use. Refused in names shown to people: a client's, an upstream key's label.
 */
const HIDDEN_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}]/u;

/** The first hidden character of `text`, as `U+XXXX` and its position, or undefined. */
export function hiddenCharacter(text: string): { code: string; index: number } | undefined {
  const hidden = HIDDEN_CHARACTER.exec(text);
  if (!hidden) return undefined;
  return { code: `U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, index: hidden.index };
}

/** What such a name is refused with, naming the character. */
export const HIDDEN_CHARACTER_RULE = 'control, direction or invisible characters (line breaks, zero-width characters, direction overrides)';
