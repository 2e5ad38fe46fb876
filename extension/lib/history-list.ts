import type { ProductName } from './messages.ts';

/**
 * The last checks per document, kept in the extension's local storage on this device only
 * (never sent anywhere). The checked text itself is not kept.
 */
export interface HistoryEntry {
  /** The document: its address without the fragment. */
  document: string;
  site: string;
  title: string;
  /** Epoch milliseconds. */
  date: number;
  product: ProductName;
  /** The result in words (see summary.ts). */
  verdict: string;
  words: number;
}

/** Checks kept per document, and documents kept in all (the oldest go first). */
export const PER_DOCUMENT = 10;
export const MAX_DOCUMENTS = 100;

export function documentOf(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/** Adds an entry (newest first), trimmed to the limits. Pure, for tests and for `record`. */
export function withEntry(entries: readonly HistoryEntry[], entry: HistoryEntry): HistoryEntry[] {
  const next = [entry, ...entries];
  const perDocument = new Map<string, number>();
  const kept: HistoryEntry[] = [];
  for (const item of next) {
    const count = perDocument.get(item.document) ?? 0;
    if (count >= PER_DOCUMENT) continue;
    if (count === 0 && perDocument.size >= MAX_DOCUMENTS) continue;
    perDocument.set(item.document, count + 1);
    kept.push(item);
  }
  return kept;
}
