import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_VERDICTS, SCORE_BANDS, documentVerdict, roundedShare, scoreBand } from '../../extension/lib/verdict.ts';

describe('verdicts in words', () => {
  it('puts each document share in exactly one verdict, in order', () => {
    expect(documentVerdict(0).id).toBe('human');
    expect(documentVerdict(19.99).id).toBe('human');
    expect(documentVerdict(20).id).toBe('mixed');
    expect(documentVerdict(59.99).id).toBe('mixed');
    expect(documentVerdict(60).id).toBe('ai');
    expect(documentVerdict(100).id).toBe('ai');
    fc.assert(fc.property(fc.double({ min: 0, max: 100, noNaN: true }), fc.double({ min: 0, max: 100, noNaN: true }), (a, b) => {
      const [low, high] = a <= b ? [a, b] : [b, a];
      return DOCUMENT_VERDICTS.indexOf(documentVerdict(low)) <= DOCUMENT_VERDICTS.indexOf(documentVerdict(high));
    }));
  });

  it('rounds the share without inventing certainty', () => {
    expect(roundedShare(49.85)).toBe('50%');
    expect(roundedShare(0.3)).toBe('under 1%');
    expect(roundedShare(99.7)).toBe('over 99%');
    expect(roundedShare(0)).toBe('0%');
    expect(roundedShare(100)).toBe('100%');
    fc.assert(fc.property(fc.double({ min: 0, max: 100, noNaN: true }), (share) => {
      const text = roundedShare(share);
      if (share > 0 && share < 100) return text !== '0%' && text !== '100%';
      return true;
    }));
  });

  it('bands sentence scores in order, the highest band open-ended', () => {
    expect(scoreBand(0.51).id).toBe('ai-1');
    expect(scoreBand(0.7).id).toBe('ai-2');
    expect(scoreBand(0.99).id).toBe('ai-3');
    expect(scoreBand(1).id).toBe(SCORE_BANDS[SCORE_BANDS.length - 1]!.id);
  });
});
