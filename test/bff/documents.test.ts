import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARACTERS, OffsetMap, countCharacters, countWords } from '@redline/shared';
import { splitDocument } from '@redline/bff/operations/documents';
import { AI_SENTENCE, COPIED_SENTENCE, HUMAN_SENTENCE } from '../upstream/fixtures.ts';
import { newOperationId, startHarness, type Harness } from './harness.ts';

/** About `characters` of prose in paragraphs, with an emoji now and then (two UTF-16 units each). */
function longDocument(characters: number): string {
  const paragraphs: string[] = [];
  let length = 0;
  for (let i = 0; length < characters; i++) {
    const paragraph = [AI_SENTENCE, `${HUMAN_SENTENCE} 😀`, COPIED_SENTENCE, `Paragraph ${i} ends here.`].join(' ');
    paragraphs.push(paragraph);
    length += paragraph.length + 2;
  }
  return paragraphs.join('\n\n');
}

describe('splitDocument', () => {
  it('cuts at paragraph breaks into parts within the limit that rebuild the text', () => {
    const text = longDocument(400_000);
    const { parts, after } = splitDocument(text);
    expect(parts.length).toBe(3);
    for (const part of parts) {
      expect(countCharacters(part.text)).toBeLessThanOrEqual(MAX_TEXT_CHARACTERS);
      expect(part.text.endsWith('ends here.')).toBe(true); // a paragraph end
    }
    expect(parts.map((part) => part.before + part.text).join('') + after).toBe(text);
    const map = new OffsetMap(text);
    for (const part of parts) expect(map.slice(part.startChar, part.startChar + countCharacters(part.text))).toBe(part.text);
  });

  it('falls back to sentences, then whitespace, then code points', () => {
    const oneParagraph = `${AI_SENTENCE} `.repeat(2_000).trim();
    const bySentence = splitDocument(oneParagraph, 10_000);
    for (const part of bySentence.parts) expect(part.text.endsWith('innovation.')).toBe(true);
    const noSentences = 'word '.repeat(5_000).trim();
    const byWhitespace = splitDocument(noSentences, 1_000);
    for (const part of byWhitespace.parts) expect(part.text).toMatch(/^word( word)*$/);
    const emoji = '😀'.repeat(2_500);
    const byCodePoint = splitDocument(emoji, 1_000);
    expect(byCodePoint.parts.map((part) => countCharacters(part.text))).toEqual([1_000, 1_000, 500]);
    expect(byCodePoint.parts.map((part) => part.text).join('')).toBe(emoji);
  });
});

describe('large documents through the BFF', () => {
  let h: Harness;
  const text = longDocument(330_000);

  beforeAll(async () => {
    h = await startHarness({ env: { BFF_PART_CONCURRENCY: '2' } });
  });
  afterAll(() => h.close());

  it('detects in parts, each its own upstream operation, merged with offsets and ai_percentage over the whole text', async () => {
    const response = await h.call('/v1/detect', { operationId: newOperationId(), text });
    expect(response.status).toBe(200);
    const { parts, wordsCharged, result } = response.body;
    expect(parts).toBe(3);
    expect(wordsCharged).toBe(countWords(text));
    const received = await h.control.received();
    expect(received).toHaveLength(3);
    expect(new Set(received.map((entry: { idempotencyKey: string }) => entry.idempotencyKey)).size).toBe(3);

    const map = new OffsetMap(text);
    const chunks = result.data.details.chunks as { text: string; startChar: number; endChar: number; type: string }[];
    for (const chunk of chunks) expect(map.slice(chunk.startChar, chunk.endChar)).toBe(chunk.text);
    const aiCharacters = chunks.filter((chunk) => chunk.type === 'AI').reduce((sum, chunk) => sum + chunk.endChar - chunk.startChar, 0);
    expect(result.data.details.ai_percentage).toBeCloseTo((100 * aiCharacters) / countCharacters(text), 2);
    expect((await h.control.account('demo')).charged.detector).toBe(countWords(text));
  });

  it('checks sources in parts and recomputes plagiarism_score over the whole text', async () => {
    const response = await h.call('/v1/plagiarism', { operationId: newOperationId(), text });
    const { results, plagiarism_score } = response.body.result.result;
    const flagged = results.filter((match: { is_plagiarised: boolean }) => match.is_plagiarised);
    expect(flagged.length).toBeGreaterThan(100);
    const flaggedCharacters = flagged.reduce((sum: number, match: { sentence: string }) => sum + countCharacters(match.sentence), 0);
    expect(plagiarism_score).toBeCloseTo((100 * flaggedCharacters) / countCharacters(text), 2);
  });

  it('humanizes in parts and keeps the paragraph breaks between them', async () => {
    const response = await h.call('/v1/humanize', { operationId: newOperationId(), text, model: 'cognia' });
    const rewritten: string = response.body.result.humanized_text;
    expect(rewritten.split('\n\n').length).toBe(text.split('\n\n').length);
    expect(rewritten).not.toContain('it is important to note');
  });
});
