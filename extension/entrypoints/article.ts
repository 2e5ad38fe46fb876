import { ARTICLE_EXTRACTOR } from '../lib/content/article-key.ts';
import { extractArticle } from '../lib/content/article-extract.ts';

/**
 * Readability and the article extraction, loaded by the content script on demand (a page
 * check) with a dynamic import, so the content script stays small. It runs in the content
 * script's isolated world and hands over the extractor there, out of the page's reach.
 */
export default defineUnlistedScript(() => {
  (globalThis as Record<symbol, unknown>)[ARTICLE_EXTRACTOR] = extractArticle;
});
