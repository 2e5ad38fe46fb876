import { describe, expect, it } from 'vitest';
import {
  DetectResponseLegacy,
  DetectResponseV3,
  HumanizeResponse,
  PlagiarismResponse,
  detectResponseSchema,
  parseUpstreamError,
} from '@redline/shared';

const v3 = {
  success: true,
  data: {
    details: {
      chunks: [{ text: 'Hi.', startChar: 0, endChar: 3, type: 'Human', score: 0.1 }],
      ai_percentage: 0,
    },
    version: 'v3',
    words_processed: 1,
  },
};

describe('response schemas', () => {
  it('accept unknown extra fields at every level', () => {
    const extended = structuredClone(v3) as any;
    extended.request_id = 'r1';
    extended.data.model_build = '2026.11';
    extended.data.details.chunks[0].language = 'en';
    expect(DetectResponseV3.parse(extended).data.details.chunks[0]?.text).toBe('Hi.');
    expect(HumanizeResponse.parse({ humanized_text: 'x', words_processed: 1, model_used: 'lexi', latency_ms: 4 }).model_used).toBe('lexi');
    expect(
      PlagiarismResponse.parse({ result: { results: [], plagiarism_score: 0, checked_sources: 9 }, words_processed: 1, credits: {} }).result.results,
    ).toEqual([]);
  });

  it('refuse a response that breaks the documented fields', () => {
    const badScore = structuredClone(v3) as any;
    badScore.data.details.chunks[0].score = 1.2;
    expect(DetectResponseV3.safeParse(badScore).success).toBe(false);
    const badLabel = structuredClone(v3) as any;
    badLabel.data.details.chunks[0].type = 'Robot';
    expect(DetectResponseV3.safeParse(badLabel).success).toBe(false);
    const reversed = structuredClone(v3) as any;
    reversed.data.details.chunks[0].startChar = 5;
    expect(DetectResponseV3.safeParse(reversed).success).toBe(false);
    expect(HumanizeResponse.safeParse({ humanized_text: 'x', words_processed: 1, model_used: 'gpt' }).success).toBe(false);
  });

  it('read v1/v2 responses without sentence detail', () => {
    const legacy = { success: true, data: { details: { ai_percentage: 12.5 }, version: 'v1', words_processed: 3 } };
    expect(DetectResponseLegacy.parse(legacy).data.details.ai_percentage).toBe(12.5);
    expect(detectResponseSchema('v1')).toBe(DetectResponseLegacy);
    expect(detectResponseSchema('v3').safeParse(legacy).success).toBe(false);
  });
});

describe('parseUpstreamError', () => {
  it('reads the two specified quota bodies', () => {
    expect(parseUpstreamError(403, { error_code: '1002' })).toMatchObject({ kind: 'no_subscription' });
    expect(parseUpstreamError(403, { error_code: 1002, detail: 'No plan' })).toEqual({ kind: 'no_subscription', message: 'No plan' });
    expect(parseUpstreamError(400, { error: 'Not enough words', remaining_words: 3, required_words: 9 })).toEqual({
      kind: 'quota_exceeded',
      message: 'Not enough words',
      remainingWords: 3,
      requiredWords: 9,
    });
  });

  it('reads a 400 with the legacy field as a quota refusal, whatever its count fields are named (their names are not shown upstream)', () => {
    expect(parseUpstreamError(400, { error: 'Not enough words remaining.', words_left: 3, words_needed: 7 })).toEqual({
      kind: 'quota_exceeded',
      message: 'Not enough words remaining.',
      remainingWords: 3,
      requiredWords: 7,
    });
    expect(parseUpstreamError(400, { error: 'Legacy only' })).toEqual({ kind: 'quota_exceeded', message: 'Legacy only', remainingWords: undefined, requiredWords: undefined });
    // An invalid request says what to fix in `detail`: not a quota refusal, even with a legacy field beside it.
    expect(parseUpstreamError(400, { error: 'Bad request', detail: 'text is required' })).toMatchObject({ kind: 'other', message: 'text is required' });
  });

  it('never throws on unknown shapes', () => {
    expect(parseUpstreamError(400, { detail: 'Bad', fields: { text: 'required' } })).toEqual({
      kind: 'other',
      message: 'Bad',
      fields: { text: 'required' },
    });
    expect(parseUpstreamError(403, { error_code: '9999', message: 'Other' })).toEqual({ kind: 'other', message: 'Other' });
    expect(parseUpstreamError(502, '<html>Bad gateway</html>')).toEqual({ kind: 'other', message: '<html>Bad gateway</html>' });
    expect(parseUpstreamError(500, null)).toEqual({ kind: 'other', message: 'upstream answered HTTP 500' });
  });
});
