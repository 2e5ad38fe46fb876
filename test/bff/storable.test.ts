import { describe, expect, it } from 'vitest';
import { storableResult } from '../../bff/src/operations/storable.ts';

describe('storableResult', () => {
  it('returns a result without NULs or lone surrogates as it is (no copy)', () => {
    const clean = { segments: [{ text: 'a match 😀' }], words: 3, note: null };
    expect(storableResult(clean)).toBe(clean);
  });

  it('replaces each NUL and lone surrogate with U+FFFD in a copy, leaving the answer it came from and whole pairs alone', () => {
    const answer = { matches: [{ text: 'x\u0000y' }, { text: 'b' }], high: 'lone \ud83d end', low: '\udc00a', pair: '😀' };
    const stored = storableResult(answer);
    expect(stored).toEqual({ matches: [{ text: 'x\ufffdy' }, { text: 'b' }], high: 'lone \ufffd end', low: '\ufffda', pair: '😀' });
    expect(Array.isArray(stored.matches)).toBe(true);
    expect(stored.matches[1]).toBe(answer.matches[1]);
    expect(answer.high).toBe('lone \ud83d end');
  });

  it("replaces them in an object's keys too (a refusal's field names are the upstream's)", () => {
    const fields = { 'te\u0000xt': 'fine', model: 'x\udc00' };
    expect(storableResult(fields)).toEqual({ 'te\ufffdxt': 'fine', model: 'x\ufffd' });
    expect(Object.keys(storableResult(fields))).toHaveLength(2);
  });
});
