import { browser } from 'wxt/browser';
import { ARTICLE_EXTRACTOR } from './article-key.ts';
import type { ArticleExtract } from './article-extract.ts';
import { DomText } from './dom-text.ts';
import type { EditorFamily } from './editors.ts';
import type { DomTarget } from './target.ts';

/** A page being read, not edited: its main text is checked and highlighted, never changed. */
export interface PageTarget extends DomTarget {
  kind: 'page';
  title: string;
}

const PAGE: EditorFamily = {
  name: 'page',
  matches: () => false,
  strategies: [],
  undo: { acceptIsOneStep: false, acceptAll: 'each' },
};

type Extractor = (doc: Document) => ArticleExtract | undefined;

/**
 * Readability is about 25 KB gzipped, more than the rest of the content script, so it comes
 * in only for a page check: a module import of the extension's own `article.js`, which
 * evaluates in this isolated world.
 */
export async function loadExtractor(): Promise<Extractor> {
  const scope = globalThis as Record<symbol, unknown>;
  if (!scope[ARTICLE_EXTRACTOR]) await import(/* @vite-ignore */ browser.runtime.getURL('/article.js'));
  return scope[ARTICLE_EXTRACTOR] as Extractor;
}

export function pageTarget(article: ArticleExtract): PageTarget {
  const capture = { include: article.include };
  const root = article.root;
  return {
    kind: 'page',
    title: article.title,
    element: root,
    family: PAGE,
    model: () => new DomText(root, undefined, capture),
    readText: () => new DomText(root, undefined, capture).text,
    observe(onChange) {
      const observer = new MutationObserver(onChange);
      observer.observe(root, { subtree: true, childList: true, characterData: true });
      return () => observer.disconnect();
    },
  };
}
