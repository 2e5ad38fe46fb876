/** The text every editor page starts with: AI-like, human, AI-like. */
export const PAGE_TEXT =
  "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation. " +
  'I went to the shop yesterday and honestly it was kinda closed. ' +
  'Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm.';

export const AI_SENTENCES = [
  "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation.",
  'Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm.',
];

/**
 * The page's text with formatting inside its AI sentences (`?formatted` on the editor pages
 * that have it): bold and a link between the words a rewrite changes, an italic opener it
 * replaces. As text it is FORMATTED_TEXT.
 */
export const FORMATTED_HTML =
  "<p>In today's fast-paced digital landscape, it is important to note that <strong>artificial intelligence</strong> plays a crucial role in <a href=\"https://example.com/innovation\">fostering innovation</a>. " +
  'I went to the shop yesterday and honestly it was kinda closed. ' +
  '<em>Moreover</em>, organizations must utilize <strong>comprehensive tools</strong> in order to navigate the complexities of an ever-evolving technological paradigm.</p>' +
  '<p>A second paragraph, written by me on a Tuesday.</p>';

export const FORMATTED_TEXT =
  "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation. " +
  'I went to the shop yesterday and honestly it was kinda closed. ' +
  'Moreover, organizations must utilize comprehensive tools in order to navigate the complexities of an ever-evolving technological paradigm.';

export const formattedPage = () => new URLSearchParams(location.search).has('formatted');
