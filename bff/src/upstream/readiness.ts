import { request, type Dispatcher } from 'undici';
import { UPSTREAM_HEADERS, UPSTREAM_PATHS } from '@redline/shared';
import type { Logger } from '../logging.ts';

export type UpstreamCheck = { ok: true } | { ok: false; reason: string };

/** The address as it may be logged and shown: no credentials, query or fragment. */
export const displayUrl = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

const FIX_BASE_URL = 'Check UPSTREAM_BASE_URL: the service base address, such as https://host, without /api/detect/.';

/**
 * A cheap check that the base URL answers like the upstream: an empty detect request (no text,
 * no Idempotency-Key) is refused by the real service with its JSON error body and charges
 * nothing. A 404 page, an HTML error or a refused key means the BFF cannot serve.
 */
export async function checkUpstream(options: { baseUrl: string; apiKey: string; timeoutMs?: number; dispatcher?: Dispatcher }): Promise<UpstreamCheck> {
  const url = options.baseUrl + UPSTREAM_PATHS.detector;
  let status: number;
  let body: unknown;
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [UPSTREAM_HEADERS.apiKey]: options.apiKey },
      body: '{}',
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
    status = response.statusCode;
    const text = await response.body.text();
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).name;
    return { ok: false, reason: `${displayUrl(url)} cannot be reached (${code}). ${FIX_BASE_URL}` };
  }
  const isErrorBody = typeof body === 'object' && body !== null && ['detail', 'error', 'error_code'].some((field) => field in body);
  if (status === 401) return { ok: false, reason: `${displayUrl(url)} refused the API key (HTTP 401). Check UPSTREAM_API_KEY.` };
  if ((status === 400 || status === 403 || status === 429) && isErrorBody) return { ok: true };
  return {
    ok: false,
    reason: `${displayUrl(url)} answered HTTP ${status}${isErrorBody ? '' : ' without the upstream\'s JSON error body'}, not like the upstream. ${FIX_BASE_URL}`,
  };
}

/**
 * The upstream part of readiness: checked when asked, the answer kept for a while (a good one
 * longer than a bad one) so that probes do not load the upstream; changes are logged.
 */
export class UpstreamReadiness {
  #last: { check: UpstreamCheck; at: number } | undefined;
  #running: Promise<UpstreamCheck> | undefined;

  constructor(
    private readonly check: () => Promise<UpstreamCheck>,
    private readonly logger: Logger,
    private readonly keepMs = { ok: 30_000, failed: 5_000 },
  ) {}

  async current(): Promise<UpstreamCheck> {
    const last = this.#last;
    if (last && Date.now() - last.at < (last.check.ok ? this.keepMs.ok : this.keepMs.failed)) return last.check;
    this.#running ??= this.check().then((check) => {
      if (check.ok && this.#last && !this.#last.check.ok) this.logger.info('upstream answers like the upstream again: ready');
      if (!check.ok && (!this.#last || this.#last.check.ok || this.#last.check.reason !== check.reason)) {
        this.logger.error({ reason: check.reason }, 'not ready: the upstream check failed');
      }
      this.#last = { check, at: Date.now() };
      this.#running = undefined;
      return check;
    });
    return this.#running;
  }
}
