import { storage } from '#imports';
import { documentOf, withEntry, type HistoryEntry } from './history-list.ts';

export { documentOf, type HistoryEntry } from './history-list.ts';

export const historyItem = storage.defineItem<HistoryEntry[]>('local:history', { fallback: [] });
/** The off switch: when false, nothing new is recorded. */
export const historyEnabledItem = storage.defineItem<boolean>('local:historyEnabled', { fallback: true });

export async function recordCheck(entry: Omit<HistoryEntry, 'document' | 'site'> & { url: string }): Promise<void> {
  if (!(await historyEnabledItem.getValue())) return;
  const { url, ...rest } = entry;
  let site = '';
  try {
    site = new URL(url).hostname;
  } catch {
    // not a web address (a browser page): no site
  }
  await historyItem.setValue(withEntry(await historyItem.getValue(), { ...rest, document: documentOf(url), site }));
}

export async function clearHistory(): Promise<void> {
  await historyItem.setValue([]);
}
