import { browser } from 'wxt/browser';

/**
 * Parts of the content script that only some actions need, kept out of it so that it stays
 * small: each is an extension file (a web-accessible resource) imported when first needed.
 * A module imported by a content script evaluates in the content script's isolated world,
 * out of the page's reach, and leaves what it provides there under one of these keys.
 */
export const ON_DEMAND = {
  /** `article.js`: Readability and the page's main text (article-extract.ts). */
  article: { file: '/article.js', key: Symbol.for('redline.extractArticle') },
  /** `word-diff.js`: the word diff of a rewrite shown in the card. */
  wordDiff: { file: '/word-diff.js', key: Symbol.for('redline.wordDiff') },
  /** `apply.js`: the verified apply of an accepted suggestion (apply.ts). */
  apply: { file: '/apply.js', key: Symbol.for('redline.apply') },
  /** `mirror.js`: the highlighter of textareas and inputs (field-highlighter.ts). */
  mirror: { file: '/mirror.js', key: Symbol.for('redline.mirror') },
} as const;

export async function onDemand<T>(part: keyof typeof ON_DEMAND): Promise<T> {
  const { file, key } = ON_DEMAND[part];
  const scope = globalThis as Record<symbol, unknown>;
  if (!scope[key]) await import(/* @vite-ignore */ browser.runtime.getURL(file));
  return scope[key] as T;
}

/** Called by the on-demand module itself. */
export function provide(part: keyof typeof ON_DEMAND, value: unknown): void {
  (globalThis as Record<symbol, unknown>)[ON_DEMAND[part].key] = value;
}
