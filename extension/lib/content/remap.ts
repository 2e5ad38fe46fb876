/** A highlighted span of a text, in UTF-16 offsets. */
export interface Span {
  start: number;
  end: number;
}

/**
 * Moves spans computed for `before` onto `after`, the same text after an edit. The edit is
 * taken as one replaced region (common prefix and suffix kept). Spans wholly before it keep
 * their offsets, spans wholly after it shift; a span the edit touched is kept only if its
 * exact text still occurs once in the edited region's neighbourhood, else it is dropped.
 * A dropped span is never drawn elsewhere.
 */
export function remapSpans<T extends Span>(before: string, after: string, spans: readonly T[]): T[] {
  if (before === after) return [...spans];
  let prefix = 0;
  const maxPrefix = Math.min(before.length, after.length);
  while (prefix < maxPrefix && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  const maxSuffix = Math.min(before.length, after.length) - prefix;
  while (suffix < maxSuffix && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  const changedEndBefore = before.length - suffix;
  const delta = after.length - before.length;

  const result: T[] = [];
  for (const span of spans) {
    if (span.end <= prefix) {
      result.push(span);
    } else if (span.start >= changedEndBefore) {
      result.push({ ...span, start: span.start + delta, end: span.end + delta });
    } else {
      const relocated = relocate(before.slice(span.start, span.end), after, prefix, changedEndBefore + delta);
      if (relocated !== undefined) result.push({ ...span, start: relocated, end: relocated + (span.end - span.start) });
    }
  }
  return result;
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
