import { diffChars } from 'diff';
import { shortestChange } from './edit-regions.ts';

/**
 * Where a range of an earlier text is in the text now, when the text also changed elsewhere
 * meanwhile: a co-author's words arriving in a shared document, a page updating its own text.
 * An apply must judge and, if need be, put back its own range without touching those changes.
 */

/**
 * Where [start, end) of `before` starts in `now`, if `now` is `before` with that range replaced by
 * `text` and any other change clear of the range (not touching its edges); else undefined.
 */
export function holdsAt(before: string, now: string, start: number, end: number, text: string): number | undefined {
  const places = placesHolding(before, now, start, end, text);
  return places.length === 1 ? places[0] : undefined;
}

/** Every place `holdsAt` could answer (none, one, or several when the text fits in more than one). */
function placesHolding(before: string, now: string, start: number, end: number, text: string): number[] {
  const change = shortestChange(before, now);
  const fits = (at: number) => at >= 0 && now.startsWith(text, at) && changedClearOfEnd(before.slice(0, start), now.slice(0, at)) && changedClearOfStart(before.slice(end), now.slice(at + text.length));
  // Nothing changed before the range, or nothing after it: the range's place is known.
  if (change.start >= start) return fits(start) ? [start] : [];
  if (change.end <= end) {
    const at = now.length - (before.length - end) - text.length;
    return fits(at) ? [at] : [];
  }
  // Changed on both sides: each place that holds the text is tried (near where a diff puts the
  // range, if the text is found in many places), and only one may fit.
  const places: number[] = [];
  for (let at = now.indexOf(text); at !== -1 && places.length <= MAX_PLACES; at = now.indexOf(text, at + 1)) places.push(at);
  if (places.length > MAX_PLACES) {
    const guess = guessedStart(before, now, start, end);
    if (guess === undefined) return [];
    const reach = text.length + (end - start) + 1;
    places.length = 0;
    for (let at = Math.max(0, guess - reach); at <= guess + reach; at++) places.push(at);
  }
  return places.filter(fits);
}

/** Places tried one by one before a diff narrows them down: each costs a pass over the text. */
const MAX_PLACES = 64;

/**
 * `now` is `was`, or `was` changed before its last character, however the change is placed: a
 * change can slide over characters it shares with its neighbours ("ab" → "abb" adds a "b" before
 * the last or after it), and shortestChange places it as late as it can go.
 */
function changedClearOfEnd(was: string, now: string): boolean {
  if (was === now) return true;
  const change = shortestChange(was, now);
  return change.end < was.length && change.start + change.inserted < now.length;
}

/** How many characters `a` and `b` end with in common. */
function commonSuffix(a: string, b: string): number {
  let suffix = 0;
  while (suffix < a.length && suffix < b.length && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return suffix;
}

/** `now` is `was`, or `was` changed after its first character, however the change is placed (as early as it can go). */
function changedClearOfStart(was: string, now: string): boolean {
  if (was === now) return true;
  const suffix = commonSuffix(was, now);
  let prefix = 0;
  while (prefix < was.length - suffix && prefix < now.length - suffix && was[prefix] === now[prefix]) prefix++;
  return prefix > 0;
}

/**
 * Where [start, start + length) of `was` starts in `now`, if `now` is `was` with one change that
 * can be placed wholly before or wholly after it (touching it: a co-author's word typed right
 * beside a sentence); else undefined. A change that slides over characters it shares with the
 * range is tried placed as late as it can go and as early.
 */
export function keptBeside(was: string, now: string, start: number, length: number): number | undefined {
  // Placed as late as it can go: after the range?
  if (shortestChange(was, now).start >= start + length) return start;
  // As early: before it?
  return was.length - commonSuffix(was, now) <= start ? start + now.length - was.length : undefined;
}

/** What a range of an earlier text holds now: its replacement, what it held, something else, or either of the first two (the text reads both ways). */
export type RangeReading = { holds: 'replacement' | 'original'; at: number } | { holds: 'other' | 'either' };

/**
 * [start, end) of `before` read in `now`: it holds `replacement`, or still its own text, with any
 * other change clear of it. A text that reads both ways (a change beside the range repeating its
 * characters), or reads as one of them in more than one place, is `either`: nothing may be claimed
 * or tried on it.
 */
export function readRange(before: string, now: string, start: number, end: number, replacement: string): RangeReading {
  const applied = placesHolding(before, now, start, end, replacement);
  const untouched = now === before ? [start] : placesHolding(before, now, start, end, before.slice(start, end));
  // One reading is claimed only when the other cannot be made at all: the original found in two
  // places ("a" among "a aaaa1") is no proof that it was replaced where the replacement fits.
  if (applied.length === 1 && untouched.length === 0) return { holds: 'replacement', at: applied[0]! };
  if (untouched.length === 1 && applied.length === 0) return { holds: 'original', at: untouched[0]! };
  return applied.length + untouched.length === 0 ? { holds: 'other' } : { holds: 'either' };
}

/**
 * Where [start, end) of `before` starts in `now`, whatever it holds, when every change lies in the
 * range (its edges included) or clear of it; undefined when a change runs across an edge or (a
 * deletion) right beside one. Found by a character diff, so where the range's new text shares
 * characters with its neighbours the place is a guess, for `holdsAt` to check around.
 */
function guessedStart(before: string, now: string, start: number, end: number): number | undefined {
  const change = shortestChange(before, now);
  if (change.start >= start && change.end <= end) return start;
  let b = change.start; // the offset in `before` the diff has reached
  let shift = 0; // length added before the range
  for (const part of diffChars(before.slice(change.start, change.end), now.slice(change.start, change.start + change.inserted))) {
    const length = part.value.length;
    if (!part.added && !part.removed) {
      b += length;
      continue;
    }
    const [from, to] = part.removed ? [b, b + length] : [b, b];
    const inside = part.removed ? from < end && to > start : from >= start && from <= end;
    if (inside ? from < start || to > end : part.removed && (to === start || from === end)) return undefined;
    if (!inside && to <= start) shift += part.added ? length : -length;
    if (part.removed) b += length;
  }
  return start + shift;
}
