import { provide } from '../lib/content/on-demand.ts';
import { extractArticle } from '../lib/content/article-extract.ts';

/** Readability and the article extraction, imported by the content script for a page check (on-demand.ts). */
export default defineUnlistedScript(() => provide('article', extractArticle));
