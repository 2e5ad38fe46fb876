import {
  BFF_PATHS,
  BffDetectResponse,
  BffErrorBody,
  type BffError,
  BffHumanizeResponse,
  BffPlagiarismResponse,
  BffUsageResponse,
  type Product,
} from '@redline/shared';
import { GATEWAY_STATUSES, REPEAT_DELAYS_MS } from './lost-answers.ts';
import type { CheckError, CheckRequest } from './messages.ts';

/** Talks to the BFF. Runs only in the background and extension pages, never in a content script. */

export type BffResult<T> = { ok: true; value: T } | { ok: false; error: CheckError };

const RESPONSE_SCHEMAS = {
  detector: BffDetectResponse,
  humanizer: BffHumanizeResponse,
  plagiarism: BffPlagiarismResponse,
} as const satisfies Record<Product, unknown>;

export interface BffConnection {
  url: string;
  /** A member token or an OAuth access token; empty when not signed in. */
  token: string;
  /** Why there is no token (a sign-in that ended), to tell the member. */
  problem?: string;
}

/** How long a restarting BFF's own Retry-After is waited for at most, each time. */
const RESTART_WAIT_CAP_MS = 5_000;

type Attempt = { kind: 'answer'; status: number; body: unknown; error?: BffError } | { kind: 'lost' } | { kind: 'timed-out' };

async function attempt(url: URL, init: RequestInit, timeoutMs: number): Promise<Attempt> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    return isTimeout(error) ? { kind: 'timed-out' } : { kind: 'lost' };
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return isTimeout(error) ? { kind: 'timed-out' } : { kind: 'lost' };
  }
  const body = parseJson(text);
  if (response.ok) return { kind: 'answer', status: response.status, body };
  const explained = BffErrorBody.safeParse(body);
  if (!explained.success && GATEWAY_STATUSES.has(response.status)) return { kind: 'lost' };
  return { kind: 'answer', status: response.status, body, ...(explained.success ? { error: explained.data.error } : {}) };
}

/** How long to wait before repeating this attempt; undefined when its answer stands. */
function waitBeforeRepeat(result: Attempt, delay: number): number | undefined {
  if (result.kind === 'lost') return delay;
  if (result.kind !== 'answer' || result.error?.code !== 'shutting_down') return undefined;
  return Math.max(delay, Math.min((result.error.retryAfterSeconds ?? 0) * 1_000, RESTART_WAIT_CAP_MS));
}

const isTimeout = (error: unknown) => error instanceof DOMException && error.name === 'TimeoutError';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One call to the BFF, repeated (REPEAT_DELAYS_MS) when its answer was lost or the BFF refused it
 * because it is restarting. Repeating is safe: a check carries its operation id, which the BFF
 * runs and charges once however often it is sent; the other calls charge nothing.
 */
async function call(connection: BffConnection, path: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<BffResult<unknown>> {
  if (!connection.token) {
    return { ok: false, error: { code: 'not_configured', message: connection.problem ?? "Sign in to your team's Redline server on the extension's options page." } };
  }
  const { timeoutMs = 200_000, ...request } = init;
  const url = new URL(path, connection.url);
  const headers = { authorization: `Bearer ${connection.token}`, ...(request.body ? { 'content-type': 'application/json' } : {}) };
  // The repeats share the call's time limit: a check never waits longer than one attempt could.
  const deadline = Date.now() + timeoutMs;
  let result = await attempt(url, { ...request, headers }, timeoutMs);
  for (const delay of REPEAT_DELAYS_MS) {
    const wait = waitBeforeRepeat(result, delay);
    if (wait === undefined || deadline - Date.now() - wait < 1_000) break;
    await sleep(wait);
    result = await attempt(url, { ...request, headers }, deadline - Date.now());
  }
  if (result.kind !== 'answer') {
    return { ok: false, error: { code: 'bff_unreachable', message: `Can't reach your team's Redline server at ${connection.url}. Is it running, and is the address on the options page right?` } };
  }
  const { status, body, error } = result;
  if (status >= 200 && status < 300) return { ok: true, value: body };
  if (error) return { ok: false, error: { ...error, status } };
  return { ok: false, error: { code: 'bff_unreachable', status, message: `The server at ${connection.url} answered HTTP ${status} without an explanation. Is the address right?` } };
}

export async function runCheck(connection: BffConnection, request: CheckRequest): Promise<BffResult<unknown>> {
  const body =
    request.product === 'detector'
      ? { operationId: request.operationId, text: request.text, version: request.version }
      : request.product === 'humanizer'
        ? { operationId: request.operationId, text: request.text, model: request.model }
        : { operationId: request.operationId, text: request.text };
  const result = await call(connection, BFF_PATHS[request.product], { method: 'POST', body: JSON.stringify(body) });
  if (!result.ok) return result;
  const parsed = RESPONSE_SCHEMAS[request.product].safeParse(result.value);
  if (!parsed.success) return { ok: false, error: { code: 'upstream_invalid_response', message: "Your team's Redline server answered in an unexpected form. Is it up to date?" } };
  return { ok: true, value: parsed.data };
}

/**
 * Sends a POST the way checks do (the word-cost estimate, which charges nothing). The
 * extension has host access (its content scripts run on every site), so its requests skip
 * CORS; Firefox then sends the extension's Origin only on POST, so only a POST shows whether
 * the BFF allows this origin.
 */
export async function checkOriginAllowed(connection: BffConnection): Promise<BffResult<unknown>> {
  return call(connection, BFF_PATHS.cost, { method: 'POST', body: JSON.stringify({ text: 'Redline connection test' }), timeoutMs: 10_000 });
}

export async function getUsage(connection: BffConnection): Promise<BffResult<BffUsageResponse>> {
  const result = await call(connection, BFF_PATHS.usage, { timeoutMs: 10_000 });
  if (!result.ok) return result;
  const parsed = BffUsageResponse.safeParse(result.value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: { code: 'bff_unreachable', message: 'That address does not answer like a Redline server.' } };
}
