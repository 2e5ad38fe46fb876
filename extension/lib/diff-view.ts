import { diffWords } from 'diff';

/** Above this share of changed characters, an inline word diff is mostly strike-through: show the texts side by side. */
export const HEAVY_CHANGE = 0.5;

export function changedShare(before: string, after: string): number {
  let changed = 0;
  for (const part of diffWords(before, after)) if (part.added || part.removed) changed += part.value.length;
  return before.length + after.length === 0 ? 0 : changed / (before.length + after.length);
}
