import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OffsetMap, countCharacters, type DetectResponseLegacy } from '@redline/shared';
import { detect } from '@redline/shared/analysis';
import { mergeDetections, splitDocument } from '@redline/bff/operations/documents';
import { aiSpans } from '../../extension/lib/content/results.ts';

/**
 * A large document's detection, end to end in offsets: the BFF cuts the text into parts, each
 * part's result has sentence chunks with code point offsets into that part, the merge shifts
 * them into the whole text, and the extension turns them into UTF-16 spans of the text it sent
 * (drawing none whose text is not at its offsets). Text with every line break ICU knows, tabs,
 * NBSP, zero-width characters, emoji with modifiers, combining marks and right-to-left words,
 * cut at small limits so that parts end inside words and between surrogate pairs' neighbours.
 */
const PIECES = ['The tools.', 'it', 'Dr.', ' ', '\t', '\r', '\r\n', '\n', '\u0085', '\u2028', '\u2029', '\u00a0', '\u200b', '\u200d', '\ufeff', '😀', '👍🏽', 'e\u0301', 'שלום.', 'مرحبا', '\u200f', '語', '?', '. '];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((pieces) => pieces.join(''));

/** The part's detection as the upstream answers it, every sentence labelled AI so that each is drawn. */
function partResult(partText: string): DetectResponseLegacy {
  const { chunks, words_processed } = detect(partText);
  return { success: true, data: { details: { chunks: chunks.map((chunk) => ({ ...chunk, type: 'AI' as const })), ai_percentage: 100 }, version: 'v3', words_processed } };
}

describe('a split document\'s detection in offsets (property)', () => {
  it('puts every merged chunk at its text in the whole document, and the extension draws every one', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 40 }), (whole, max) => {
        const document = splitDocument(whole, max);
        if (document.parts.length === 0) return;
        const merged = mergeDetections(document, document.parts.map((part) => partResult(part.text)));
        const chunks = merged.data.details.chunks!;
        const map = new OffsetMap(whole);
        let previousEnd = 0;
        for (const chunk of chunks) {
          expect(map.slice(chunk.startChar, chunk.endChar)).toBe(chunk.text);
          expect(chunk.startChar).toBeGreaterThanOrEqual(previousEnd);
          previousEnd = chunk.endChar;
        }
        const aiCharacters = chunks.reduce((sum, chunk) => sum + chunk.endChar - chunk.startChar, 0);
        expect(merged.data.details.ai_percentage).toBe(Math.round((aiCharacters / countCharacters(whole)) * 10_000) / 100);
        const spans = aiSpans(whole, { result: merged });
        expect(spans.map((span) => whole.slice(span.start, span.end))).toEqual(chunks.map((chunk) => chunk.text));
      }),
      { numRuns: 1000 },
    );
  });
});
