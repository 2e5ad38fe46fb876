/** FORMATTED_HTML (text.ts) as markdown, for the markdown editors' `?formatted` pages. */
export const FORMATTED_MARKDOWN =
  "In today's fast-paced digital landscape, it is important to note that **artificial intelligence** plays a crucial role in [fostering innovation](https://example.com/innovation). " +
  'I went to the shop yesterday and honestly it was kinda closed. ' +
  '*Moreover*, organizations must utilize **comprehensive tools** in order to navigate the complexities of an ever-evolving technological paradigm.';

/** A markdown document's text as the other pages' models give it: paragraphs one per line, bold, italic and links as their words. */
export const markdownText = (markdown: string): string =>
  markdown
    .trim()
    .replace(/\n\n/g, '\n')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|\*/g, '');
