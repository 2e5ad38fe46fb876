import { storage } from '#imports';
import type { CheckRequest } from './messages.ts';

/**
 * Checks sent to the BFF that have not been answered with a result yet, by what was asked.
 * Chromium may stop the service worker while a check waits at the BFF: the BFF still runs it
 * and charges it, and the writer is told to try again. A new try from the same page carries the
 * same operation id (the page keeps it), but one from a reloaded page or another tab carries a
 * new one, which the BFF would run and charge a second time. Kept in session storage (it outlives
 * the service worker), so the new try is sent under the first try's id and the BFF answers it
 * once. Only for a while: an older check asked again is a new check.
 */

const REUSE_WITHIN_MS = 10 * 60_000;

interface Unfinished {
  operationId: string;
  at: number;
}

async function keyOf(request: CheckRequest): Promise<`session:${string}`> {
  const variant = request.product === 'detector' ? request.version : request.product === 'humanizer' ? request.model : '';
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${request.product}\n${variant ?? ''}\n${request.text}`));
  const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `session:unfinished-${hex}`;
}

/**
 * The request as it is to be sent: under the operation id of an unfinished check of the same
 * text, when there is one, else its own, which is kept until finished() is called.
 */
export async function underUnfinishedId<T extends CheckRequest>(request: T): Promise<T> {
  const key = await keyOf(request);
  const known = await storage.getItem<Unfinished>(key);
  if (known && Date.now() - known.at < REUSE_WITHIN_MS) return known.operationId === request.operationId ? request : { ...request, operationId: known.operationId };
  await storage.setItem<Unfinished>(key, { operationId: request.operationId, at: Date.now() });
  return request;
}

/** The check was answered with its result: asking again is a new check. */
export async function finished(request: CheckRequest): Promise<void> {
  await storage.removeItem(await keyOf(request));
}
