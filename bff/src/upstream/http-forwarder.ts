import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import {
  UPSTREAM_HEADERS,
  UPSTREAM_PATHS,
  parseUpstreamError,
  type Product,
} from '@redline/shared';
import type { RetryPolicy } from '../config.ts';
import { HttpError, shuttingDown, upstreamErrors } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { Metrics } from '../metrics.ts';
import { refusesBeforeTheRecord, type ForwardRequest, type ForwardResult, type Forwarder } from './forwarder.ts';
import type { UpstreamKeyring } from './keyring.ts';
import { displayUrl } from './readiness.ts';
import { backoffDelay, parseRetryAfter, sleep } from './retry.ts';
import { withoutKey } from './without-key.ts';

type Attempt =
  | { kind: 'success'; body: unknown; acceptedKey?: string; acceptedKeySource?: string }
  /** Retry after a backoff: the outcome is unknown or the failure is temporary. */
  | { kind: 'backoff'; reason: 'network' | 'timeout' | 'unavailable' | 'server_error' | 'gateway' | 'provider_aborted' }
  /** Retry after the upstream's Retry-After. */
  | { kind: 'wait'; reason: 'in_progress' | 'rate_limited'; waitMs: number | undefined }
  | { kind: 'final'; error: HttpError }
  /** The upstream refused the key (401) this attempt sent. */
  | { kind: 'key_rejected'; keyId: string };

/**
 * A 502 means the provider aborted safely with nothing charged, so repeating the key is
 * safe; but an abort is often caused by the input, and the upstream says "retry later", so
 * the BFF tries once more after a backoff and then reports it rather than hammering.
 */
const MAX_PROVIDER_ABORT_RETRIES = 1;

/** Whether an attempt answered so may still have run upstream: only a 429 and a provider abort say it ran nothing, or charged nothing. */
const mayHaveRunOn = (attempt: Attempt) =>
  !(attempt.kind === 'wait' && attempt.reason === 'rate_limited') && !(attempt.kind === 'backoff' && attempt.reason === 'provider_aborted');

export interface HttpForwarderOptions {
  baseUrl: string;
  keys: UpstreamKeyring;
  /** Told the remaining words the upstream reports in a quota refusal, and whose (the key's account). */
  onQuota?: (product: Product, remainingWords: number, account: string) => Promise<void>;
  /**
   * The Idempotency-Key of an operation the upstream completed with the given key (the
   * ledger's), to tell whether a changed UPSTREAM_API_KEY is of the same account (#sameAccount).
   */
  completedKeyOf?: (upstreamKeyId: string) => Promise<{ idempotencyKey: string; product: Product } | undefined>;
  retry: RetryPolicy;
  metrics: Metrics;
  logger: Logger;
  random?: () => number;
}

/** Forwards to the real upstream over undici, retrying the same bytes with the same key. */
export class HttpForwarder implements Forwarder {
  readonly source = 'upstream' as const;
  readonly #agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
  /** Per earlier UPSTREAM_API_KEY value (by id): whether the active value is of its account; an unanswered check is not kept. */
  readonly #accountChecks = new Map<string, Promise<'same' | 'other' | 'unknown'>>();

  constructor(private readonly options: HttpForwarderOptions) {}

  async forward(operation: ForwardRequest): Promise<ForwardResult> {
    const { retry, metrics, logger } = this.options;
    if (operation.signal) allowManyListeners(operation.signal);
    const deadline = performance.now() + retry.deadlineMs;
    let providerAborts = 0;
    let lastRetryable: Attempt = { kind: 'backoff', reason: 'network' };
    let mayHaveRun = operation.mayHaveRun ?? false;
    /** Whether an attempt of this call may have run upstream (mayHaveRun counts earlier calls too). */
    let ranHere = false;
    const refused = (error: HttpError): ForwardResult => ({ ok: false, error, settled: !(mayHaveRun && refusesBeforeTheRecord(error)), ranNothing: !ranHere });

    for (let attempt = 0; attempt < retry.maxAttempts; attempt++) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) break;
      if (attempt > 0 && !mayHaveRun && operation.refusal) {
        const refusal = await operation.refusal();
        if (refusal) return { ok: false, error: refusal, settled: true, ranNothing: true };
      }
      const cutByDeadline = remaining < retry.attemptTimeoutMs;
      const outcome = await this.#attempt(operation, Math.min(remaining, retry.attemptTimeoutMs));
      if (outcome.kind === 'success') return { ok: true, ...outcome };
      if (outcome.kind === 'key_rejected') {
        // Refused while a rotation made another key this operation's (the upstream retired the
        // old value of the same account): try again at once with the new one. Read again first:
        // this instance may have missed the rotation's notice (it would learn of it at its next poll).
        await this.options.keys.reload().catch(() => {});
        const next = this.options.keys.keyFor(operation.upstreamKeyId ?? null);
        if (next && next.id !== outcome.keyId) {
          metrics.upstreamRetries.inc({ product: operation.product, reason: 'key_rotated' });
          logger.warn({ product: operation.product, upstreamKey: next.id }, 'upstream key refused during a rotation; retrying with the active key');
          continue;
        }
        return refused(upstreamErrors.keyRejected());
      }
      if (outcome.kind === 'final') return refused(outcome.error);
      ranHere ||= mayHaveRunOn(outcome);
      if (operation.signal?.aborted) return { ok: false, error: shuttingDown(), settled: false, ranNothing: !ranHere };

      // An attempt the call's own deadline cut short says nothing of the upstream: what the client
      // hears is the answer before it (a 503 stays a 503, not "could not be reached").
      if (!(cutByDeadline && outcome.kind === 'backoff' && outcome.reason === 'timeout' && attempt > 0)) lastRetryable = outcome;
      mayHaveRun ||= ranHere;
      if (outcome.kind === 'backoff' && outcome.reason === 'provider_aborted' && ++providerAborts > MAX_PROVIDER_ABORT_RETRIES) break;
      const waitMs =
        outcome.kind === 'wait' && outcome.waitMs !== undefined
          ? outcome.waitMs // the full Retry-After, never less
          : backoffDelay(retry, attempt, this.options.random);
      if (attempt + 1 >= retry.maxAttempts || performance.now() + waitMs >= deadline) break;

      metrics.upstreamRetries.inc({ product: operation.product, reason: outcome.reason });
      logger.warn({ product: operation.product, reason: outcome.reason, attempt: attempt + 1, waitMs }, 'retrying upstream call');
      try {
        await sleep(waitMs, operation.signal);
      } catch {
        break;
      }
    }
    // A provider abort is known to have run and charged nothing: settled, so the operation
    // neither holds its words nor is resumed unasked; a repeat of its id tries it again.
    const aborted = lastRetryable.kind === 'backoff' && lastRetryable.reason === 'provider_aborted';
    // Cut off by the shutdown's grace period: the client is told the BFF restarts, not that the upstream is unreachable.
    if (operation.signal?.aborted && !aborted) return { ok: false, error: shuttingDown(), settled: false, ranNothing: !ranHere };
    return { ok: false, error: this.#unsettledError(lastRetryable), settled: aborted, ranNothing: !ranHere };
  }

  /**
   * An operation that started with an earlier value of UPSTREAM_API_KEY, which is no longer
   * set. The upstream's own rotation (3.1) activates a new value of the same account and
   * retires the old one, so "set the old value again" is often impossible; but another
   * account would run the operation and charge it again. Which it is, is asked once: the new
   * value sends the Idempotency-Key of an operation the old value completed, to that
   * operation's product (one the old value's account subscribes to), with another text.
   * The same account holds that key's record and answers 409 (nothing run, nothing charged);
   * another account runs the short text (its few words charged there) and the operation keeps
   * its old key. Anything else leaves it undecided, asked again on the next attempt.
   */
  async #afterEnvKeyChange(startedWith: string | null) {
    const { keys } = this.options;
    const earlier = keys.earlierEnvKey(startedWith);
    if (!earlier || !this.options.completedKeyOf) return undefined;
    let check = this.#accountChecks.get(earlier);
    if (!check) {
      check = this.#checkAccount(earlier);
      this.#accountChecks.set(earlier, check);
      void check.then((answer) => answer === 'unknown' && this.#accountChecks.delete(earlier));
    }
    if ((await check) !== 'same') return undefined;
    keys.sameAccountAsActive(earlier);
    return keys.keyFor(startedWith);
  }

  async #checkAccount(earlier: string): Promise<'same' | 'other' | 'unknown'> {
    const { baseUrl, keys, logger, retry } = this.options;
    const active = keys.active();
    const completed = await this.options.completedKeyOf!(earlier).catch(() => undefined);
    if (!active || !completed) return 'unknown';
    const text = 'Redline upstream account check.';
    const body = completed.product === 'detector' ? { text, version: 'v3' } : completed.product === 'humanizer' ? { text, model: 'cognia' } : { text };
    try {
      const response = await request(baseUrl + UPSTREAM_PATHS[completed.product], {
        method: 'POST',
        dispatcher: this.#agent,
        headers: { 'content-type': 'application/json', [UPSTREAM_HEADERS.apiKey]: active.value, [UPSTREAM_HEADERS.idempotencyKey]: completed.idempotencyKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(retry.attemptTimeoutMs),
      });
      await response.body.text();
      const answer = response.statusCode === 409 ? 'same' : response.statusCode >= 200 && response.statusCode < 300 ? 'other' : 'unknown';
      logger.warn({ earlierKey: earlier, upstreamKey: active.id, product: completed.product, status: response.statusCode, account: answer }, 'UPSTREAM_API_KEY changed: checked whether the new value is of the same upstream account');
      return answer;
    } catch {
      return 'unknown';
    }
  }

  /** What the client hears when retries ran out with the outcome still open. */
  #unsettledError(last: Attempt): HttpError {
    if (last.kind === 'wait') return upstreamErrors.busy(Math.max(1, Math.ceil((last.waitMs ?? 5_000) / 1000)));
    if (last.kind === 'backoff' && last.reason === 'unavailable') return upstreamErrors.usageRecordingUnavailable(30);
    if (last.kind === 'backoff' && last.reason === 'provider_aborted') return upstreamErrors.providerAborted();
    return upstreamErrors.unreachable(30);
  }

  async #attempt(operation: ForwardRequest, timeoutMs: number): Promise<Attempt> {
    const { baseUrl, keys, metrics } = this.options;
    // Chosen per attempt: a retry after an activation moves to the new key when it shares the account.
    const key = (await keys.keyForReading(operation.upstreamKeyId ?? null)) ?? (await this.#afterEnvKeyChange(operation.upstreamKeyId ?? null));
    if (!key) return { kind: 'final', error: keys.refusalFor(operation.upstreamKeyId ?? null) };
    const started = performance.now();
    const observe = (outcome: string) =>
      metrics.upstreamLatency.observe({ product: operation.product, outcome }, (performance.now() - started) / 1000);
    // One controller and one plain timer per attempt: AbortSignal.timeout and AbortSignal.any
    // keep weak references for the GC to clear and showed up in the profile.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(ATTEMPT_TIMED_OUT), timeoutMs);
    const stop = () => controller.abort(operation.signal!.reason);
    if (operation.signal?.aborted) stop();
    else operation.signal?.addEventListener('abort', stop, { once: true });
    try {
      const response = await request(baseUrl + UPSTREAM_PATHS[operation.product], {
        method: 'POST',
        dispatcher: this.#agent,
        headers: {
          'content-type': 'application/json',
          [UPSTREAM_HEADERS.apiKey]: key.value,
          [UPSTREAM_HEADERS.idempotencyKey]: operation.idempotencyKey,
        },
        body: operation.body,
        signal: controller.signal,
      });
      // A refusal's message is passed on to the member: one that quotes the key must not carry it.
      const received = await response.body.text();
      const text = response.statusCode >= 300 ? withoutKey(received, key.value) : received;
      const header = (name: string) => {
        const value = response.headers[name.toLowerCase()];
        return Array.isArray(value) ? value[0] : value;
      };
      observe(String(response.statusCode));
      if (response.statusCode === 401) return { kind: 'key_rejected', keyId: key.id };
      const outcome = classify(operation.product, response.statusCode, text, header);
      const remainingWords = outcome.kind === 'final' && outcome.error.body.code === 'quota_exceeded' ? outcome.error.body.remainingWords : undefined;
      if (remainingWords !== undefined) await this.options.onQuota?.(operation.product, remainingWords, key.account);
      if (outcome.kind === 'final' && outcome.error.body.code === 'upstream_invalid_response') {
        this.options.logger.error(
          { product: operation.product, status: response.statusCode, url: displayUrl(baseUrl + UPSTREAM_PATHS[operation.product]) },
          'the upstream answered unexpectedly; check UPSTREAM_BASE_URL',
        );
      }
      return outcome;
    } catch {
      const timedOut = controller.signal.reason === ATTEMPT_TIMED_OUT;
      observe(timedOut ? 'timeout' : 'network_error');
      return { kind: 'backoff', reason: timedOut ? 'timeout' : 'network' };
    } finally {
      clearTimeout(timer);
      operation.signal?.removeEventListener('abort', stop);
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

const ATTEMPT_TIMED_OUT = new Error('upstream attempt timed out');

/** One shutdown signal is shared by every call in flight, each listening to it while it runs. */
const sharedSignals = new WeakSet<AbortSignal>();
function allowManyListeners(signal: AbortSignal): void {
  if (sharedSignals.has(signal)) return;
  sharedSignals.add(signal);
  setMaxListeners(0, signal);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);

function classify(product: Product, status: number, text: string, header: (name: string) => string | undefined): Attempt {
  const body = parseJson(text);
  if (status >= 200 && status < 300) {
    const acceptedKey = header(UPSTREAM_HEADERS.acceptedIdempotencyKey);
    const acceptedKeySource = header(UPSTREAM_HEADERS.idempotencyKeySource);
    return { kind: 'success', body, acceptedKey, acceptedKeySource };
  }
  const retryAfterHeader = header(UPSTREAM_HEADERS.retryAfter);
  const retryAfter = parseRetryAfter(retryAfterHeader);
  switch (status) {
    case 400: {
      const error = parseUpstreamError(status, body);
      if (error.kind === 'quota_exceeded') {
        return { kind: 'final', error: upstreamErrors.quotaExceeded(product, error.remainingWords, error.requiredWords) };
      }
      return { kind: 'final', error: upstreamErrors.invalidRequest(error.message, error.kind === 'other' ? error.fields : undefined) };
    }
    case 401:
      return { kind: 'final', error: upstreamErrors.keyRejected() };
    case 403:
      return { kind: 'final', error: upstreamErrors.noSubscription(product) };
    case 409:
      // An exact repeat of a running operation carries Retry-After (read or not, it says so);
      // a key reused for other work does not.
      return retryAfterHeader === undefined
        ? { kind: 'final', error: upstreamErrors.keyConflict() }
        : { kind: 'wait', reason: 'in_progress', waitMs: retryAfter };
    case 410:
      return { kind: 'final', error: upstreamErrors.resultExpired() };
    case 429:
      return { kind: 'wait', reason: 'rate_limited', waitMs: retryAfter };
    case 502:
      // The upstream answers in JSON; a 502 in anything else (an HTML page, an empty body) is a
      // gateway's in front of it, which may have lost the answer of a call that ran and charged.
      return isObject(body) ? { kind: 'backoff', reason: 'provider_aborted' } : { kind: 'backoff', reason: 'gateway' };
    case 503:
      return { kind: 'backoff', reason: 'unavailable' };
    default:
      return status >= 500
        ? { kind: 'backoff', reason: 'server_error' }
        : { kind: 'final', error: upstreamErrors.unexpectedStatus(status) };
  }
}
