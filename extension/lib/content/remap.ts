/** A highlighted span of a text, in UTF-16 offsets. */
export interface Span {
  start: number;
  end: number;
}

/** One replaced region: `[start, start + removed)` of the old text became `[start, start + inserted)`. */
export interface TextEdit {
  start: number;
  removed: number;
  inserted: number;
}

const BLOCK = 1024;

/**
 * The region where `after` differs from `before`: the longest common prefix, then the
 * longest common suffix of what remains. Blocks are compared natively first, so a keystroke
 * in a long text costs a few string comparisons rather than a walk over every character.
 */
export function diffText(before: string, after: string): TextEdit | undefined {
  if (before === after) return undefined;
  const shorter = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix + BLOCK <= shorter && before.slice(prefix, prefix + BLOCK) === after.slice(prefix, prefix + BLOCK)) prefix += BLOCK;
  while (prefix < shorter && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  const maxSuffix = shorter - prefix;
  let suffix = 0;
  while (suffix + BLOCK <= maxSuffix && before.slice(before.length - suffix - BLOCK, before.length - suffix) === after.slice(after.length - suffix - BLOCK, after.length - suffix)) suffix += BLOCK;
  while (suffix < maxSuffix && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  return { start: prefix, removed: before.length - suffix - prefix, inserted: after.length - suffix - prefix };
}

/**
 * Moves spans computed for `before` onto `after`, the same text after an edit. The edit is
 * taken as one replaced region (common prefix and suffix kept). Spans wholly before it keep
 * their offsets (and identity), spans wholly after it shift; a span the edit touched is kept
 * only if its exact text still occurs once in the edited region's neighbourhood and it stays
 * in order between the spans around it, else it is dropped. A dropped span is never drawn
 * elsewhere.
 *
 * `spans` must be sorted by start and must not overlap (as every result's spans are): the
 * untouched ones are found by binary search, so only the spans around the edit are examined.
 */
export function remapSpans<T extends Span>(before: string, after: string, spans: readonly T[], edit = diffText(before, after)): T[] {
  if (!edit) return [...spans];
  const changedEndBefore = edit.start + edit.removed;
  const delta = edit.inserted - edit.removed;
  const firstTouched = firstIndex(spans, (span) => span.end > edit.start);
  const firstAfter = firstIndex(spans, (span) => span.start >= changedEndBefore, firstTouched);

  const result = spans.slice(0, firstTouched);
  // A relocated span must keep its place among the others, or it is dropped too.
  let floor = result.at(-1)?.end ?? 0;
  const ceiling = firstAfter < spans.length ? spans[firstAfter]!.start + delta : after.length;
  for (let i = firstTouched; i < firstAfter; i++) {
    const span = spans[i]!;
    const relocated = relocate(before.slice(span.start, span.end), after, edit.start, edit.start + edit.inserted);
    if (relocated === undefined || relocated < floor || relocated + (span.end - span.start) > ceiling) continue;
    result.push({ ...span, start: relocated, end: relocated + (span.end - span.start) });
    floor = relocated + (span.end - span.start);
  }
  for (let i = firstAfter; i < spans.length; i++) {
    const span = spans[i]!;
    result.push(delta === 0 ? span : { ...span, start: span.start + delta, end: span.end + delta });
  }
  return result;
}

/** The first index from `from` where `test` holds, for a test that is false then true along the array. */
export function firstIndex<T>(items: readonly T[], test: (item: T) => boolean, from = 0): number {
  let low = from;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (test(items[mid]!)) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** The one place `needle` occurs overlapping [from, to) of `text`, if exactly one. */
function relocate(needle: string, text: string, from: number, to: number): number | undefined {
  if (!needle) return undefined;
  const windowStart = Math.max(0, from - needle.length);
  const windowEnd = Math.min(text.length, to + needle.length);
  const region = text.slice(windowStart, windowEnd);
  const first = region.indexOf(needle);
  if (first < 0 || region.indexOf(needle, first + 1) >= 0) return undefined;
  return windowStart + first;
}
