import { localItem } from '../local-item.ts';

/**
 * Sentences the writer chose to ignore, per document (the page's address), kept in extension
 * storage on this device. Only a short hash of each sentence is stored, not its text.
 */
type IgnoredByDocument = Record<string, { at: number; sentences: string[] }>;

const ignoredItem = localItem<IgnoredByDocument>('ignoredSentences', {});
/** The oldest documents are forgotten past this many. */
const KEEP_DOCUMENTS = 200;

/** The document a check belongs to: the page's address without its fragment. */
export function documentKey(where: Location = location): string {
  return `${where.origin}${where.pathname}${where.search}`;
}

/** A sentence's key: a 53-bit hash (cyrb53) of its text with whitespace runs made one space. */
export function sentenceKey(text: string): string {
  const normal = text.trim().replace(/\s+/g, ' ');
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < normal.length; i++) {
    const code = normal.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

export async function ignoredSentences(document: string): Promise<Set<string>> {
  return new Set((await ignoredItem.getValue())[document]?.sentences ?? []);
}

export async function setIgnored(document: string, sentence: string, ignored: boolean): Promise<void> {
  const all = { ...(await ignoredItem.getValue()) };
  const key = sentenceKey(sentence);
  const sentences = new Set(all[document]?.sentences ?? []);
  if (ignored) sentences.add(key);
  else sentences.delete(key);
  if (sentences.size) all[document] = { at: Date.now(), sentences: [...sentences] };
  else delete all[document];
  const kept = Object.entries(all).sort(([, a], [, b]) => b.at - a.at).slice(0, KEEP_DOCUMENTS);
  await ignoredItem.setValue(Object.fromEntries(kept));
}
