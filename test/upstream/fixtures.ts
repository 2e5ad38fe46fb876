/** Texts with known analysis outcomes, shared by the tests. */

export const AI_SENTENCE =
  "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation.";
export const HUMAN_SENTENCE = 'I went to the shop yesterday and honestly it was kinda closed.';
export const MIXED_TEXT = `${AI_SENTENCE} ${HUMAN_SENTENCE} Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm.`;

export const COPIED_SENTENCE =
  'Photosynthesis is the process by which green plants use sunlight to make food from carbon dioxide and water.';
export const ORIGINAL_SENTENCE = 'My neighbour keeps three goats that eat everything in sight.';
