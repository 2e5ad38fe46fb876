/** Where the on-demand article script leaves its extractor in the content script's isolated world. */
export const ARTICLE_EXTRACTOR = Symbol.for('redline.extractArticle');
