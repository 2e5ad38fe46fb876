/** The text every editor page starts with: AI-like, human, AI-like. */
export const PAGE_TEXT =
  "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation. " +
  'I went to the shop yesterday and honestly it was kinda closed. ' +
  'Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm.';

export const AI_SENTENCES = [
  "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation.",
  'Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm.',
];
