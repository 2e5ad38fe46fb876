import { diffWordsWithSpace } from 'diff';

/** A part of a sentence to replace: [start, end) in the sentence's offsets, and what goes there. */
export interface EditRegion {
  start: number;
  end: number;
  text: string;
}

/**
 * The parts of `original` that `replacement` rewrites, word by word, so that an editor is
 * asked to replace only those: the words between them keep their formatting (bold, a link),
 * which replacing the whole sentence would lose. Two parts are merged when `joinable` says
 * the text from the first's start to the second's end holds nothing to lose (one run of the
 * editor's text: no formatting begins or ends in it), or when only a space is between them;
 * every part replaces at least one character with at least one, since some
 * editors mishandle an empty insertion or deletion (`linkEndsAt`: whether a link's text ends at
 * an offset, which decides the character taken in; `formattedAlike`: whether two characters have the
 * same formatting, which decides whether a part takes in the space after it). Applied in turn, the parts turn
 * `original` into `replacement` exactly.
 */
export function editRegions(
  original: string,
  replacement: string,
  joinable: (start: number, end: number) => boolean,
  linkEndsAt: (offset: number) => boolean = () => false,
  formattedAlike: (a: number, b: number) => boolean = () => true,
): EditRegion[] {
  if (original === replacement) return [];
  const regions: EditRegion[] = [];
  let at = 0;
  for (const part of diffWordsWithSpace(original, replacement)) {
    if (!part.added && !part.removed) {
      at += part.value.length;
      continue;
    }
    const last = regions.at(-1);
    const region = last && last.end === at ? last : { start: at, end: at, text: '' };
    if (region !== last) regions.push(region);
    if (part.removed) region.end = at += part.value.length;
    else region.text += part.value;
  }
  for (const region of regions) {
    if (region.start < region.end && region.text !== '') continue;
    // An insertion or a deletion takes in a neighbouring character (a whole code point): the one
    // before, else after. Words added at a link's end take in the one after: the link's last
    // letter, written back, went after the link in 15 of 24 editors ("innovatio"). (A deletion
    // there keeps the one before: the one after went into the link in 8 editors, the one before
    // out of it in 5; see the README.)
    const addedAtLinkEnd = region.start === region.end && region.end < original.length && linkEndsAt(region.end);
    if (region.start > 0 && !addedAtLinkEnd) {
      const before = original.codePointAt(region.start - 2)! > 0xffff ? 2 : 1;
      region.text = original.slice(region.start - before, region.start) + region.text;
      region.start -= before;
    } else if (region.end < original.length) {
      const after = original.codePointAt(region.end)! > 0xffff ? 2 : 1;
      region.text += original.slice(region.end, region.end + after);
      region.end += after;
    }
  }
  const merged: EditRegion[] = [];
  for (const region of regions) {
    const previous = merged.at(-1);
    // Parts only a space apart merge too, unless formatting begins or ends in the space: their
    // words were replaced together, and the new ones take one formatting, the first part's.
    const spaceApart = previous !== undefined && /^\s+$/.test(original.slice(previous.end, region.start)) && joinable(previous.end, region.start);
    if (previous && (previous.end >= region.start || spaceApart || joinable(previous.start, region.end))) {
      // A character both took in (a one-character gap) is in both texts: once is enough.
      const shared = Math.max(0, previous.end - region.start);
      previous.text += original.slice(previous.end, region.start) + region.text.slice(shared);
      previous.end = region.end;
    } else merged.push(region);
  }
  // A space both sides share at a part's start stays out of it, so that a part rarely begins at
  // a formatting boundary: an editor inserting there may carry the bold of the words before.
  // So does one they share at its end that is formatted otherwise than its start: the new words
  // take the start's formatting, and the space would end that run ("**artificial minds shape **",
  // which a markdown editor reads as no bold: Vditor, measured).
  for (const region of merged) {
    while (region.end - region.start > 1 && region.text.length > 1 && /\s/.test(region.text[0]!) && original[region.start] === region.text[0]) {
      region.start++;
      region.text = region.text.slice(1);
    }
    const sharedEnd = () => region.text.at(-1)!;
    while (region.end - region.start > 1 && region.text.length > 1 && /\s/.test(sharedEnd()) && original[region.end - 1] === sharedEnd() && !formattedAlike(region.start, region.end - 1)) {
      region.end--;
      region.text = region.text.slice(0, -1);
    }
  }
  // A part that ends just before a space takes the space in (and puts it back): a space left at
  // the start of the text after a replaced range becomes a no-break space in Chromium, which an
  // editor's model then keeps (Milkdown, measured). Not a space formatted otherwise than the
  // part's start (as above).
  merged.forEach((region, i) => {
    const next = merged[i + 1]?.start ?? original.length + 1;
    if (region.end + 1 >= next || !/\s/.test(original[region.end] ?? '') || /\s$/.test(region.text)) return;
    if (!formattedAlike(region.start, region.end)) return;
    region.text += original[region.end];
    region.end++;
  });
  // A part that replaces a whole formatted run and words beside it begins at the space before
  // the run: its new words then take the formatting around them, not that of the run they
  // replace ("plays a **crucial role** in" → "is central to", not "is central **to**").
  merged.forEach((region, i) => {
    const before = region.start - 1;
    if (before < 0 || !/\s/.test(original[before]!) || (merged[i - 1]?.end ?? -1) >= before) return;
    if (joinable(before, region.start + 1) || joinable(region.start, region.end)) return;
    region.start = before;
    region.text = original[before] + region.text;
  });
  return merged;
}

/**
 * For an editor that reads a native edit back from its DOM as the shortest change between the
 * old text and the new, and gives the inserted characters the formatting found at that change's
 * start whatever the DOM shows (ProseMirror): the formatting runs at the start of that change
 * that the edit removes whole, [start, end) of `original`, to be deleted in an edit of their
 * own first. Then the change that inserts begins in the run the new words replace last, not in
 * one that goes ("*Moreover*, organizations" → "Organizations" is read as "Moreover, o" → "O",
 * and the "O" took the italic). Undefined when the change inserts nothing or lies in one run.
 */
export function runsRemovedFirst(original: string, replacement: string, joinable: (start: number, end: number) => boolean): [number, number] | undefined {
  const { start, end, inserted } = shortestChange(original, replacement);
  if (inserted === 0 || end - start < 2 || joinable(start, end)) return undefined;
  // The start of the last run the change reaches into: from there to the change's end is one text node.
  let last = end - 1;
  while (last > start && joinable(last - 1, end)) last--;
  return last > start ? [start, last] : undefined;
}

/**
 * Where `original` and `replacement` differ, as an editor reading an edit back from its DOM
 * finds it (ProseMirror): [start, end) of `original`, common prefix and suffix left out (never
 * half of a character at the start), and how many characters of `replacement` go there.
 */
export function shortestChange(original: string, replacement: string): { start: number; end: number; inserted: number } {
  let start = 0;
  while (start < original.length && start < replacement.length && original[start] === replacement[start]) start++;
  if (isLowSurrogate(original.charCodeAt(start))) start--;
  let suffix = 0;
  while (suffix < original.length - start && suffix < replacement.length - start && original.at(-1 - suffix) === replacement.at(-1 - suffix)) suffix++;
  return { start, end: original.length - suffix, inserted: replacement.length - suffix - start };
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** `original` with `regions` (sorted, not overlapping) replaced: what applying them all gives. */
export function withRegions(original: string, regions: readonly EditRegion[]): string {
  let text = '';
  let at = 0;
  for (const region of regions) {
    text += original.slice(at, region.start) + region.text;
    at = region.end;
  }
  return text + original.slice(at);
}

/**
 * Cuts a part where the editor holds markup inside it that the writer does not see and the
 * check did not read (`hiddenInside`: such places strictly inside [start, end), as offsets of
 * `original`), such as the hidden `**` that closes a bold run in Vditor's instant rendering:
 * replaced with the words, that marker went, and the editor then dropped the bold. The new
 * words go in the first piece (the formatting of the part's start, as before); the second
 * piece is deleted, taking in the character after it (written back), so that it too replaces
 * one character at least. A part with more than one such place, or no free character after
 * it, is left whole.
 */
export function cutAtHiddenMarkup(original: string, regions: readonly EditRegion[], hiddenInside: (start: number, end: number) => number[]): EditRegion[] {
  return regions.flatMap((region, i) => {
    const cuts = region.text === '' ? [] : hiddenInside(region.start, region.end);
    if (cuts.length !== 1) return [region];
    const cut = cuts[0]!;
    const next = regions[i + 1]?.start ?? original.length + 1;
    const after = region.end < original.length && original.codePointAt(region.end)! > 0xffff ? 2 : 1;
    if (region.end + after > original.length || region.end + after > next || hiddenInside(cut, region.end + after).length > 0) return [region];
    const taken = original.slice(region.end, region.end + after);
    return [
      { start: region.start, end: cut, text: region.text },
      { start: cut, end: region.end + after, text: taken },
    ];
  });
}
