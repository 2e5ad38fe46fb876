import { Readability } from '@mozilla/readability';

/**
 * The page's main text, found by Mozilla Readability (Firefox's Reader View) on a copy of the
 * page, and pointed back to the live page: the text nodes Readability kept are mapped to the
 * page's own, so highlights can be drawn there without changing the page. Loaded on demand
 * (entrypoints/article.ts), never part of the content script.
 */
export interface ArticleExtract {
  title: string;
  /** The element holding every kept text node. */
  root: HTMLElement;
  /** Whether a text node of the page is part of the main text (its parent held kept text). */
  include(node: Text): boolean;
}

const OWN_ELEMENTS = 'redline-toast, redline-card, redline-overlay';

export function extractArticle(doc: Document): ArticleExtract | undefined {
  const copy = doc.cloneNode(true) as Document;
  // The copy has the page's structure, so one walk of both pairs each copied node with its original.
  const originals = new Map<Node, Node>();
  const walkOriginal = doc.createTreeWalker(doc, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  const walkCopy = copy.createTreeWalker(copy, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let a: Node | null = walkOriginal.currentNode, b: Node | null = walkCopy.currentNode; a && b; a = walkOriginal.nextNode(), b = walkCopy.nextNode()) {
    originals.set(b, a);
  }
  for (const own of copy.querySelectorAll(OWN_ELEMENTS)) own.remove();
  const article = new Readability<Node>(copy, { serializer: (node) => node }).parse();
  const content = article?.content;
  if (!article || !content) return undefined;

  const kept: Text[] = [];
  const walkKept = copy.createTreeWalker(content, NodeFilter.SHOW_TEXT);
  for (let node = walkKept.nextNode() as Text | null; node; node = walkKept.nextNode() as Text | null) if (node.data.trim()) kept.push(node);
  const parents = new Set<Element>();
  let mapped = 0;
  for (const node of kept) {
    const original = originals.get(node);
    if (original?.parentElement && original.isConnected) {
      parents.add(original.parentElement);
      mapped++;
    }
  }
  // Readability re-parses the page when its first pass finds too little; its nodes are then new.
  if (mapped < kept.length / 2) mapInOrder(doc, kept, parents);
  if (parents.size === 0) return undefined;
  return { title: (article.title ?? '').trim() || doc.title, root: commonAncestor([...parents]), include: (node) => !!node.parentElement && parents.has(node.parentElement) };
}

/** Pairs kept text nodes with the page's text nodes of the same text, in document order. */
function mapInOrder(doc: Document, kept: Text[], parents: Set<Element>): void {
  const texts: Text[] = [];
  const walker = doc.createTreeWalker(doc.body ?? doc, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) texts.push(node);
  let at = 0;
  for (const wanted of kept) {
    let i = at;
    while (i < texts.length && texts[i]!.data !== wanted.data) i++;
    if (i === texts.length) continue;
    if (texts[i]!.parentElement) parents.add(texts[i]!.parentElement!);
    at = i + 1;
  }
}

function commonAncestor(elements: Element[]): HTMLElement {
  let root: Element = elements[0]!;
  for (const element of elements.slice(1)) while (!root.contains(element)) root = root.parentElement!;
  return root as HTMLElement;
}
