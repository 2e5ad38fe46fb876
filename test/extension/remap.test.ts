import { describe, expect, it } from 'vitest';
import { remapSpans } from '../../extension/lib/content/remap.ts';
import { aiSpans, sourceSpans } from '../../extension/lib/content/results.ts';

const text = 'First sentence here. Second one is flagged. Third is flagged too. Last.';
const second = { start: text.indexOf('Second'), end: text.indexOf('Third') - 1, index: 1 };
const third = { start: text.indexOf('Third'), end: text.indexOf('Last') - 1, index: 2 };
const slice = (value: string, span: { start: number; end: number }) => value.slice(span.start, span.end);

describe('remapSpans (stale results)', () => {
  it('keeps spans when nothing changed', () => {
    expect(remapSpans(text, text, [second, third])).toEqual([second, third]);
  });

  it('shifts spans after an edit before them', () => {
    const edited = `Intro. ${text}`;
    const spans = remapSpans(text, edited, [second, third]);
    expect(spans.map((span) => slice(edited, span))).toEqual(['Second one is flagged.', 'Third is flagged too.']);
  });

  it('keeps spans before an edit after them', () => {
    const edited = text.replace('Last.', 'The very last sentence.');
    expect(remapSpans(text, edited, [second, third])).toEqual([second, third]);
  });

  it('drops a span the edit touched, never drawing it elsewhere', () => {
    const edited = text.replace('Second one', 'Second two');
    const spans = remapSpans(text, edited, [second, third]);
    expect(spans.map((span) => span.index)).toEqual([2]);
    expect(slice(edited, spans[0]!)).toBe('Third is flagged too.');
  });

  it('keeps a span the edit region swallowed when its exact text is still there once', () => {
    // Replacing "here. Second" with "here! Second": prefix ends before the span, suffix reaches into it.
    const edited = text.replace('here. ', 'here! ');
    const spans = remapSpans(text, edited, [second]);
    expect(spans.map((span) => slice(edited, span))).toEqual(['Second one is flagged.']);
  });

  it('drops a span whose text now occurs twice near the edit', () => {
    const edited = text.replace('Second one is flagged. ', 'Second one is flagged. Second one is flagged. ');
    const spans = remapSpans(text, edited, [second]);
    for (const span of spans) expect(slice(edited, span)).toBe('Second one is flagged.');
  });

  it('drops everything when the text was replaced', () => {
    expect(remapSpans(text, 'Something else entirely.', [second, third])).toEqual([]);
  });
});

describe('result offsets (code points) to page offsets (UTF-16)', () => {
  it('maps detector chunks after characters outside the BMP', () => {
    const page = '😀 Hello there. Moreover, this is flagged.';
    // Offsets as the upstream counts them: code points, so the emoji is one character.
    const start = [...page.slice(0, page.indexOf('Moreover'))].length;
    const envelope = {
      result: {
        data: {
          details: {
            ai_percentage: 50,
            chunks: [
              { text: 'Hello there.', startChar: 2, endChar: 14, type: 'Human' as const, score: 0.1 },
              { text: 'Moreover, this is flagged.', startChar: start, endChar: start + 26, type: 'AI' as const, score: 0.9 },
            ],
          },
        },
      },
    };
    const spans = aiSpans(page, envelope);
    expect(spans).toHaveLength(1);
    expect(page.slice(spans[0]!.start, spans[0]!.end)).toBe('Moreover, this is flagged.');
    expect(spans[0]).toMatchObject({ index: 1, kind: 'ai', score: 0.9 });
  });

  it('does not draw a chunk whose text is not at its offsets', () => {
    const envelope = { result: { data: { details: { ai_percentage: 1, chunks: [{ text: 'Elsewhere.', startChar: 0, endChar: 10, type: 'AI' as const, score: 0.9 }] } } } };
    expect(aiSpans('Not here at all.', envelope)).toEqual([]);
    expect(aiSpans('Short.', envelope)).toEqual([]);
  });

  it('finds flagged source sentences in order', () => {
    const page = 'Mine. Copied one. Mine again. Copied one.';
    const match = (sentence: string, is_plagiarised: boolean) => ({ sentence, is_plagiarised, similarity: 0.8, web_sentence: 'x', link: 'https://a.example' });
    const spans = sourceSpans(page, { result: { result: { plagiarism_score: 50, results: [match('Copied one.', true), match('Mine again.', false), match('Copied one.', true)] } } });
    expect(spans.map((span) => [span.start, span.index])).toEqual([
      [6, 0],
      [30, 2],
    ]);
  });
});
