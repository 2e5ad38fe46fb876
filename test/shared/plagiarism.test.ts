import { describe, expect, it } from 'vitest';
import { MATCH_THRESHOLD, SourceIndex, createPlagiarismChecker, type SourceDocument } from '@redline/shared/analysis';
import { mulberry32, sentence, vocabulary } from '../bench/synthetic-text.ts';

const random = mulberry32(7);
const words = vocabulary(5_000, random);
const distractors: SourceDocument[] = Array.from({ length: 300 }, (_, d) => ({
  link: `https://distractor.example/${d}`,
  text: Array.from({ length: 20 }, () => sentence(words, random)).join(' '),
}));

const SOURCE = 'Lighthouse keepers trimmed the wicks every evening and polished the great lenses by hand.';
const NEAR = 'Lighthouse keepers trimmed the wicks every evening and polished the lenses by hand.';

describe('source index', () => {
  it('returns the best match, not the first one above the threshold', () => {
    const index = new SourceIndex([
      { link: 'https://first.example', text: NEAR },
      { link: 'https://best.example', text: SOURCE },
    ]);
    const check = createPlagiarismChecker(index);
    const [match] = check(SOURCE).results;
    expect(match).toMatchObject({ link: 'https://best.example', similarity: 1, is_plagiarised: true });
    expect(createPlagiarismChecker([{ link: 'https://first.example', text: NEAR }])(SOURCE).results[0]!.similarity).toBeGreaterThanOrEqual(MATCH_THRESHOLD);
  });

  it('finds a copied sentence that a dozen longer source sentences contain whole (an outside probe)', () => {
    // Every longer sentence shares all of the short one's phrases, as many as its copy does.
    const long = 'This program is free software: you can redistribute it and/or modify it under the terms of the GNU General Public License.';
    const short = 'This program is free software.';
    const check = createPlagiarismChecker([
      ...Array.from({ length: 20 }, (_, d) => ({ link: `https://licensed.example/${d}`, text: `Package ${d} of the suite. ${long}` })),
      { link: 'https://short.example', text: `A preface. ${short} More of it.` },
    ]);
    expect(check(short).results).toEqual([{ sentence: short, is_plagiarised: true, web_sentence: short, similarity: 1, link: 'https://short.example' }]);
    expect(check('This program is free software, honestly.').results[0]).toMatchObject({ web_sentence: short, link: 'https://short.example', is_plagiarised: true });
  });

  it('finds copied and lightly edited sentences among many sources, with their links', () => {
    const corpus = [...distractors, { link: 'https://lighthouses.example', text: `${SOURCE} Most lights are automated now.` }];
    const check = createPlagiarismChecker(corpus);
    const copied = distractors[123]!.text.split(/(?<=\.) /u)[4]!;
    const edited = `${copied.slice(0, -1).split(' ').slice(0, -1).join(' ')} indeed.`;
    const text = `My own opening, about nothing in particular. ${NEAR.replace('every', 'each')} ${edited} A closing line of mine.`;
    const flagged = check(text).results.filter((r) => r.is_plagiarised);
    expect(flagged.map((r) => r.link)).toEqual(['https://lighthouses.example', 'https://distractor.example/123']);
    expect(flagged[0]!.web_sentence).toBe(SOURCE);
    expect(flagged[1]!.web_sentence).toBe(copied);
  });

  it('reports nothing for text that is not in the sources, and is deterministic', () => {
    const check = createPlagiarismChecker(distractors);
    const text = 'Tea was first drunk in China thousands of years ago. My grandmother never liked it.';
    expect(check(text)).toEqual({ results: [], plagiarism_score: 0, words_processed: 15 });
    const copied = distractors.slice(0, 5).map((d) => d.text.split(/(?<=\.) /u)[2]).join(' ');
    expect(check(copied)).toEqual(check(copied));
  });
});
