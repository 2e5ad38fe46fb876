import {
  BFF_PATHS,
  BffDetectResponse,
  BffErrorBody,
  BffHumanizeResponse,
  BffPlagiarismResponse,
  BffUsageResponse,
  type Product,
} from '@redline/shared';
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

async function call(connection: BffConnection, path: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<BffResult<unknown>> {
  if (!connection.token) {
    return { ok: false, error: { code: 'not_configured', message: connection.problem ?? "Sign in to your team's Redline server on the extension's options page." } };
  }
  let response: Response;
  try {
    response = await fetch(new URL(path, connection.url), {
      ...init,
      headers: { authorization: `Bearer ${connection.token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      signal: AbortSignal.timeout(init.timeoutMs ?? 200_000),
    });
  } catch {
    return { ok: false, error: { code: 'bff_unreachable', message: `Can't reach your team's Redline server at ${connection.url}. Is it running, and is the address on the options page right?` } };
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok) return { ok: true, value: body };
  const parsed = BffErrorBody.safeParse(body);
  if (parsed.success) return { ok: false, error: { ...parsed.data.error, status: response.status } };
  return { ok: false, error: { code: 'bff_unreachable', status: response.status, message: `The server at ${connection.url} answered HTTP ${response.status} without an explanation. Is the address right?` } };
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
