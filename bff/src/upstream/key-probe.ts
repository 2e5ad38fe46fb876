import { request } from 'undici';
import { UPSTREAM_HEADERS, UPSTREAM_PATHS, countWords, newIdempotencyKey, parseUpstreamError } from '@redline/shared';
import { withoutKey } from './without-key.ts';

/** The test's texts: the new key's request, and the active key's request under the same Idempotency-Key. */
export const PROBE_TEXT = 'Redline key check.';
export const ACCOUNT_PROBE_TEXT = 'Redline key check, account probe.';

/** Said on the page before a test runs: what it may charge. */
export const PROBE_COST_NOTE =
  // The upstream has no balance or key-check call (upstream-api.md: balances are in its dashboard only), and each product is its own subscription.
  'It checks the key with the detector only: whether its plan covers the humanizer and the plagiarism checker is not tried (the upstream has no call that tells without running one). ' +
  `Testing sends the upstream one detector request with this key for a ${countWords(PROBE_TEXT)}-word text (charged ${countWords(PROBE_TEXT)} words). ` +
  `To tell whether it belongs to the same account as the active key, it then repeats that request's Idempotency-Key with the active key and another text: ` +
  `one account answers that the key was used for other work (nothing charged); another account runs it (${countWords(ACCOUNT_PROBE_TEXT)} words charged there).`;

export type AccountRelation = 'same' | 'other' | 'unknown';

export interface ProbeResult {
  ok: boolean;
  summary: string;
  wordsCharged: number;
  /** How the key relates to the active key's account (unknown when there is no active key or it could not be told). */
  account: AccountRelation;
}

interface Answer {
  status: number;
  body: unknown;
  retryAfter: string | undefined;
}

async function detect(baseUrl: string, apiKey: string, idempotencyKey: string, text: string): Promise<Answer | { error: string }> {
  try {
    const response = await request(baseUrl + UPSTREAM_PATHS.detector, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [UPSTREAM_HEADERS.apiKey]: apiKey, [UPSTREAM_HEADERS.idempotencyKey]: idempotencyKey },
      body: JSON.stringify({ text, version: 'v3' }),
      signal: AbortSignal.timeout(20_000),
    });
    const received = await response.body.text();
    // A refusal's message becomes the test's summary, shown and stored: never with the key in it.
    const raw = response.statusCode >= 300 ? withoutKey(received, apiKey) : received;
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const retryAfter = response.headers[UPSTREAM_HEADERS.retryAfter.toLowerCase()];
    return { status: response.statusCode, body, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? (error as Error).name };
  }
}

const wordsProcessed = (body: unknown) => {
  const words = (body as { data?: { words_processed?: unknown } })?.data?.words_processed;
  return typeof words === 'number' ? words : 0;
};

/**
 * Tests a new key with one cheap real request, then asks whether it shares the active key's
 * account: idempotency records belong to the account (upstream-api.md 2.8 and CONTRACT.md), so
 * the active key repeating the new key's Idempotency-Key with another text gets 409 without
 * Retry-After exactly when both keys see one account's records. An active key the upstream now
 * refuses (401) counts as the same account: the one documented way a key stops working is its
 * account activating a replacement (3.1), which is this key.
 */
export async function probeKey(baseUrl: string, candidate: string, active: string | undefined): Promise<ProbeResult> {
  const idempotencyKey = newIdempotencyKey();
  const first = await detect(baseUrl, candidate, idempotencyKey, PROBE_TEXT);
  if ('error' in first) return { ok: false, summary: `The upstream could not be reached (${first.error}). Try again.`, wordsCharged: 0, account: 'unknown' };
  switch (first.status) {
    case 200:
      break;
    case 401:
      return { ok: false, summary: 'The upstream refused this key (HTTP 401). Check that it is activated in the upstream dashboard and was pasted whole.', wordsCharged: 0, account: 'unknown' };
    case 403:
      return { ok: true, summary: 'The upstream accepts this key, but its plan has no detector subscription, so the test could not tell its account (the humanizer and the plagiarism checker were not tried).', wordsCharged: 0, account: 'unknown' };
    case 400: {
      const error = parseUpstreamError(400, first.body);
      if (error.kind === 'quota_exceeded') {
        return { ok: true, summary: `The upstream accepts this key, but it has ${error.remainingWords} detector words left, so the test could not tell its account.`, wordsCharged: 0, account: 'unknown' };
      }
      return { ok: false, summary: `The upstream refused the test request (HTTP 400: ${error.message}).`, wordsCharged: 0, account: 'unknown' };
    }
    default:
      return { ok: false, summary: `The upstream answered HTTP ${first.status}. Try again in a minute.`, wordsCharged: 0, account: 'unknown' };
  }
  const charged = wordsProcessed(first.body);
  const works = `The upstream accepted this key for the detector (charged ${charged} words; the humanizer and the plagiarism checker were not tried).`;
  if (active === undefined) return { ok: true, summary: works, wordsCharged: charged, account: 'unknown' };
  if (active === candidate) return { ok: true, summary: `${works} It is the active key.`, wordsCharged: charged, account: 'same' };

  const second = await detect(baseUrl, active, idempotencyKey, ACCOUNT_PROBE_TEXT);
  if ('error' in second) return { ok: true, summary: `${works} Whether it shares the active key's account could not be told (${second.error}).`, wordsCharged: charged, account: 'unknown' };
  if (second.status === 409 && second.retryAfter === undefined) {
    return { ok: true, summary: `${works} It belongs to the same upstream account as the active key: operations in flight move to it.`, wordsCharged: charged, account: 'same' };
  }
  if (second.status === 401) {
    return { ok: true, summary: `${works} The upstream now refuses the active key, as when this key replaced it in the same account: operations in flight move to it.`, wordsCharged: charged, account: 'same' };
  }
  if (second.status === 200) {
    const other = wordsProcessed(second.body);
    return {
      ok: true,
      summary: `${works} It belongs to another upstream account than the active key (${other} words charged there): operations in flight finish with the key they started with.`,
      wordsCharged: charged + other,
      account: 'other',
    };
  }
  return { ok: true, summary: `${works} Whether it shares the active key's account could not be told (HTTP ${second.status}).`, wordsCharged: charged, account: 'unknown' };
}
