import type { RetryPolicy } from '../config.ts';

/** Capped exponential backoff with full jitter: a random wait in [0, min(cap, base * 2^attempt)). */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.backoffCapMs, policy.backoffBaseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** An HTTP date as RFC 9110 sends it (IMF-fixdate): "Sun, 06 Nov 1994 08:49:37 GMT". */
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Retry-After as milliseconds: delta-seconds (a fraction read as such) or an HTTP date;
 * undefined when absent or unreadable, and the caller then waits its own backoff. Only a real
 * HTTP date is parsed as one: Date.parse reads "1.5" as a date in 2001, a wait of nothing.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  if (!IMF_FIXDATE.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
