import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ConsoleStore, SessionRecord } from '../storage/console-store.ts';
import type { MemberRecord } from '../storage/ledger.ts';
import { ConsoleError } from './errors.ts';

export const SESSION_COOKIE = 'redline_console';
export const CSRF_HEADER = 'x-redline-csrf';
/** A session ends after this long without a request … */
export const SESSION_IDLE_MS = 30 * 60_000;
/** … and after this long in any case. */
export const SESSION_ABSOLUTE_MS = 12 * 3600_000;
/** Requests closer together than this do not rewrite the session's last-seen time. */
const TOUCH_EVERY_MS = 30_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The CSRF token is derived from the session secret, so it needs no storage and dies with the session. */
export const csrfTokenOf = (secret: string) => createHmac('sha256', secret).update('redline-console-csrf').digest('base64url');

export interface Clock {
  now(): number;
}

export interface ConsoleSession {
  session: SessionRecord;
  member: MemberRecord;
  secret: string;
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** The cookie is Secure whenever the console is reached over HTTPS (directly or as BFF_PUBLIC_URL says). */
export const cookieIsSecure = (req: Request, publicUrl: string | undefined) => req.secure || (publicUrl?.startsWith('https:') ?? false);

export async function startSession(store: ConsoleStore, member: MemberRecord, req: Request, res: Response, clock: Clock, publicUrl: string | undefined) {
  const opened = await openSession(store, member, req, clock);
  setSessionCookie(req, res, opened.secret, publicUrl);
  return opened;
}

/** Stores a new session for the member; the cookie is set by setSessionCookie. */
export async function openSession(store: ConsoleStore, member: MemberRecord, req: Request, clock: Clock) {
  const secret = randomBytes(32).toString('base64url');
  const now = clock.now();
  const session = {
    id: `s_${randomBytes(8).toString('hex')}`,
    secretHash: sha256(secret),
    memberId: member.id,
    createdAt: now,
    expiresAt: now + SESSION_ABSOLUTE_MS,
    address: req.ip ?? '',
    userAgent: (req.get('user-agent') ?? '').slice(0, 200),
  };
  await store.createSession(session);
  return { session, secret, csrfToken: csrfTokenOf(secret) };
}

export function setSessionCookie(req: Request, res: Response, secret: string, publicUrl: string | undefined): void {
  const flags = ['Path=/console', 'HttpOnly', 'SameSite=Strict', `Max-Age=${SESSION_ABSOLUTE_MS / 1000}`];
  if (cookieIsSecure(req, publicUrl)) flags.push('Secure');
  res.append('Set-Cookie', `${SESSION_COOKIE}=${secret}; ${flags.join('; ')}`);
}

export function clearSessionCookie(req: Request, res: Response, publicUrl: string | undefined): void {
  const flags = ['Path=/console', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0'];
  if (cookieIsSecure(req, publicUrl)) flags.push('Secure');
  res.append('Set-Cookie', `${SESSION_COOKIE}=; ${flags.join('; ')}`);
}

/**
 * The request's session: the cookie's secret names an unrevoked session within its idle and
 * absolute expiry, held by a member who is still active. The member is read afresh, so a
 * role change or a revocation applies to the next request.
 */
export async function currentSession(store: ConsoleStore, req: Request, clock: Clock): Promise<ConsoleSession> {
  const secret = readCookie(req, SESSION_COOKIE);
  if (!secret) throw new ConsoleError(401, 'no_session', 'Sign in to the console first.');
  const session = await store.sessionBySecret(sha256(secret));
  if (!session) throw new ConsoleError(401, 'no_session', 'This console session is unknown or was signed out. Sign in again.');
  const now = clock.now();
  if (now >= session.expiresAt || now - session.lastSeenAt >= SESSION_IDLE_MS) {
    throw new ConsoleError(401, 'session_expired', 'This console session has expired. Sign in again.');
  }
  const member = await store.member(session.memberId);
  if (!member || member.revokedAt) throw new ConsoleError(401, 'no_session', 'This member was revoked. Sign in as another member.');
  if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await store.touchSession(session.id, now);
  return { session, member, secret };
}

/** The origin the console is served from: BFF_PUBLIC_URL's, or the one this request was addressed to. */
export function consoleOrigin(req: Request, publicUrl: string | undefined): string {
  return publicUrl ? new URL(publicUrl).origin : `${req.protocol}://${req.get('host') ?? ''}`;
}

/**
 * Cross-site request forgery: a state-changing request must come from the console's own
 * origin (browsers always send Origin on POST) and, with a session, carry the session's CSRF
 * token in a header, which another site can neither read nor set on a cross-origin request.
 */
export function checkOrigin(req: Request, publicUrl: string | undefined): void {
  const origin = req.get('origin');
  const site = req.get('sec-fetch-site');
  if ((origin !== undefined && origin !== consoleOrigin(req, publicUrl)) || (site !== undefined && site !== 'same-origin' && site !== 'none')) {
    throw new ConsoleError(403, 'csrf_refused', 'This request did not come from the console page. Open the console at /console and try again.');
  }
}

export function checkCsrfToken(req: Request, secret: string): void {
  const sent = Buffer.from(req.get(CSRF_HEADER) ?? '');
  const expected = Buffer.from(csrfTokenOf(secret));
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    throw new ConsoleError(403, 'csrf_refused', 'The console request lacked its CSRF token. Reload the console page and try again.');
  }
}

export const hashSecret = sha256;
