import { describe, expect, it } from 'vitest';
import type { BffDetectResponse, BffPlagiarismResponse } from '@redline/shared';
import { compareDetections } from '../../extension/lib/compare.ts';
import { changedShare, HEAVY_CHANGE } from '../../extension/lib/diff-view.ts';
import { MAX_DOCUMENTS, PER_DOCUMENT, documentOf, withEntry, type HistoryEntry } from '../../extension/lib/history-list.ts';
import { describeModel } from '../../extension/lib/models.ts';
import { reportHtml } from '../../extension/lib/report-html.ts';
import { domainOf, isQuoted, shareWithoutCited, sourcePages, titleOf } from '../../extension/lib/sources.ts';

const detection = (chunks: { text: string; score: number }[], share: number) =>
  ({ result: { success: true, data: { details: { chunks: chunks.map((chunk) => ({ ...chunk, startChar: 0, endChar: 0, type: chunk.score > 0.5 ? 'AI' : 'Human' })), ai_percentage: share }, version: 'v3', words_processed: 1 } } }) as unknown as BffDetectResponse;

describe('before and after a rewrite', () => {
  it('pairs changed sentences and counts unchanged ones', () => {
    const before = detection([{ text: 'Kept one.', score: 0.1 }, { text: 'It is important to note that AI matters.', score: 0.97 }, { text: 'Kept two.', score: 0.2 }], 40);
    const after = detection([{ text: 'Kept one.', score: 0.1 }, { text: 'AI matters.', score: 0.3 }, { text: 'Kept two.', score: 0.2 }], 0);
    const comparison = compareDetections(before, after);
    expect(comparison).toMatchObject({ before: 40, after: 0, unchanged: 2 });
    expect(comparison.changes).toEqual([
      { before: [{ text: 'It is important to note that AI matters.', score: 0.97, ai: true }], after: [{ text: 'AI matters.', score: 0.3, ai: false }] },
    ]);
  });

  it('shows a split sentence as one change with two new sentences', () => {
    const comparison = compareDetections(detection([{ text: 'A long one, and more.', score: 0.9 }], 100), detection([{ text: 'A long one.', score: 0.4 }, { text: 'More.', score: 0.2 }], 0));
    expect(comparison.changes).toHaveLength(1);
    expect(comparison.changes[0]!.after.map((sentence) => sentence.text)).toEqual(['A long one.', 'More.']);
  });
});

describe('diff view', () => {
  it('calls a rewrite of most words heavy, and a one-word change light', () => {
    expect(changedShare('The cat sat on the mat today.', 'The cat sat on the rug today.')).toBeLessThan(HEAVY_CHANGE);
    expect(changedShare("In today's fast-paced digital landscape, it is important to note that AI plays a crucial role.", 'Today, AI is central.')).toBeGreaterThan(HEAVY_CHANGE);
    expect(changedShare('', '')).toBe(0);
  });
});

describe('history', () => {
  const entry = (document: string, date: number): HistoryEntry => ({ document, site: 'example.org', title: 't', date, product: 'detector', verdict: 'Mixed (50%)', words: 10 });

  it('keeps the newest checks first, at most PER_DOCUMENT per document and MAX_DOCUMENTS documents', () => {
    let entries: HistoryEntry[] = [];
    for (let i = 0; i < PER_DOCUMENT + 5; i++) entries = withEntry(entries, entry('a', i));
    expect(entries).toHaveLength(PER_DOCUMENT);
    expect(entries[0]!.date).toBe(PER_DOCUMENT + 4);
    for (let i = 0; i < MAX_DOCUMENTS + 3; i++) entries = withEntry(entries, entry(`doc-${i}`, 1000 + i));
    expect(new Set(entries.map((item) => item.document)).size).toBe(MAX_DOCUMENTS);
    expect(entries.some((item) => item.document === 'a')).toBe(false); // the oldest document went first
  });

  it('treats addresses that differ only in the fragment as one document', () => {
    expect(documentOf('https://example.org/post?id=3#comments')).toBe('https://example.org/post?id=3');
  });
});

describe('sources', () => {
  it('names a source by a title from its address, else by its domain', () => {
    expect(titleOf('https://encyclopedia.example.org/photosynthesis')).toBe('Photosynthesis');
    expect(titleOf('https://en.example.org/wiki/Water_cycle.html')).toBe('Water cycle');
    expect(titleOf('https://example.org/')).toBeUndefined();
    expect(titleOf('https://example.org/2024/')).toBeUndefined();
    expect(domainOf('https://www.example.com/a')).toBe('example.com');
  });

  it('detects a sentence in quotation marks, inside or around the sentence', () => {
    const text = 'He wrote: "Plants use sunlight to make food." Then he left. “Water falls as rain.” And “half';
    const at = (sentence: string) => [text.indexOf(sentence), text.indexOf(sentence) + sentence.length] as const;
    expect(isQuoted(text, ...at('Plants use sunlight to make food.'))).toBe(true);
    expect(isQuoted(text, ...at('“Water falls as rain.”'))).toBe(true);
    expect(isQuoted(text, ...at('Then he left.'))).toBe(false);
    expect(isQuoted(text, ...at('“half'))).toBe(false);
  });

  it('leaves cited matches out of the shown share, scaling the checker’s own figure', () => {
    const text = 'Aaaa aaaa aaaa. Bbbb bbbb. Cccc cccc cccc cccc.';
    const response = {
      result: {
        result: {
          plagiarism_score: 60,
          results: [
            { sentence: 'Aaaa aaaa aaaa.', is_plagiarised: true, web_sentence: 'x', similarity: 0.9, link: 'https://one.example/a' },
            { sentence: 'Bbbb bbbb.', is_plagiarised: false, web_sentence: '', similarity: 0, link: 'https://one.example/a' },
            { sentence: 'Cccc cccc cccc cccc.', is_plagiarised: true, web_sentence: 'y', similarity: 0.8, link: 'https://two.example/b' },
          ],
        },
      },
    } as unknown as BffPlagiarismResponse;
    const pages = sourcePages(text, response);
    expect(pages.map((page) => [page.domain, page.matches.map((match) => match.index)])).toEqual([
      ['one.example', [0]],
      ['two.example', [2]],
    ]);
    expect(shareWithoutCited(pages, 60, new Set())).toBe(60);
    expect(shareWithoutCited(pages, 60, new Set([0]))).toBeCloseTo((60 * 20) / 35);
    expect(shareWithoutCited(pages, 60, new Set([0, 2]))).toBe(0);
  });

  // A source's address is the upstream's word: only a web address becomes a link, in the side
  // panel and in the HTML report (a file the editor opens, where a javascript: link would run).
  it('links a source only when its address is http or https', () => {
    const links = ['javascript:alert(document.domain)', 'JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'https://one.example/a', 'http://two.example/b'];
    const response = {
      result: { result: { plagiarism_score: 50, results: links.map((link, index) => ({ sentence: `Sentence ${index}.`, is_plagiarised: true, web_sentence: 'x', similarity: 0.9, link })) } },
    } as unknown as BffPlagiarismResponse;
    const pages = sourcePages(links.map((_, index) => `Sentence ${index}.`).join(' '), response);
    expect(pages.map((page) => page.href)).toEqual([undefined, undefined, undefined, undefined, 'https://one.example/a', 'http://two.example/b']);

    const html = reportHtml({
      url: 'https://page.example/',
      exportedAt: '2026-11-28T00:00:00.000Z',
      offsets: 'unicode-code-points',
      sources: {
        text: '',
        plagiarismScore: 50,
        explanation: '',
        matches: links.map((link) => ({ sentence: 's', start: null, end: null, sourceSentence: 'x', similarity: 0.9, link, quoted: false, cited: false })),
      },
    });
    expect(html.match(/href="[^"]*"/g)).toEqual(['href="https://one.example/a"', 'href="http://two.example/b"']);
    expect(html).toContain('javascript:alert(document.domain)');
    // Nothing in the report may run, whatever it holds.
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
  });
});

describe('models', () => {
  it('claims nothing about the service’s models beyond its documentation', () => {
    expect(describeModel('cognia', 'upstream').description).toBe('The service’s default model.');
    expect(describeModel('lexi', 'upstream').note).toMatch(/does not say how its models differ/);
    expect(describeModel('lexi', 'offline').description).toMatch(/Plainer words/);
  });
});
