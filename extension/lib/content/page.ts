import type { ArticleExtract } from './article-extract.ts';
import { DomText } from './dom-text.ts';
import type { EditorFamily } from './editors.ts';
import { onDemand } from './on-demand.ts';
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

/** Readability is about 25 KB gzipped, nearly the content script's whole budget: it comes in only for a page check. */
export function loadExtractor(): Promise<Extractor> {
  return onDemand<Extractor>('article');
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
