import { randomBytes } from 'node:crypto';
import express, { type Request } from 'express';
import { z } from 'zod';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ConsoleStore, NewSignInLink } from '../storage/console-store.ts';
import type { Ledger, MemberRecord } from '../storage/ledger.ts';
import type { Logger } from '../logging.ts';
import type { MemberAuthorizationServer } from './provider.ts';
import { hashSecret } from '../console/sessions.ts';
import { refuseNonUtf8 } from '../http/json-body.ts';

/**
 * One-time sign-in links for the browser extension. An administrator (or the member) makes
 * one in the console; the member pastes it, or just its code, into the extension's options;
 * the extension redeems it here for an OAuth grant bound to the /v1 API, as if the member had
 * approved the extension on the consent page. A link works once and for 24 hours, only its
 * hash is stored, and every redemption, granted or refused, is in the audit log. A used link
 * presented again revokes the grant its redemption issued (RFC 6749 section 4.1.2, as for codes).
 */

export const EXTENSION_LINK_TTL_MS = 24 * 3600_000;
export const EXTENSION_LINK_PATH = '/oauth/extension-link';
/** Where the link points: a page that says what to do with it, should someone open it in a browser. */
export const CONNECT_PAGE_PATH = '/connect';

export interface ExtensionLink {
  url: string;
  code: string;
  expiresAt: number;
}

function newExtensionLink(memberId: string, createdBy: string, origin: string, now: number): { record: NewSignInLink; link: ExtensionLink } {
  const code = randomBytes(32).toString('base64url');
  const expiresAt = now + EXTENSION_LINK_TTL_MS;
  const record: NewSignInLink = { codeHash: hashSecret(code), memberId, purpose: 'extension', createdBy, createdAt: now, expiresAt };
  // The code is in the fragment: a browser that opens the link never sends it anywhere.
  return { record, link: { url: `${origin}${CONNECT_PAGE_PATH}#code=${code}`, code, expiresAt } };
}

export async function createExtensionLink(store: ConsoleStore, memberId: string, createdBy: string, origin: string, now: number) {
  const { record, link } = newExtensionLink(memberId, createdBy, origin, now);
  await store.createLink(record);
  return link;
}

/**
 * A member's link for themselves, unless they made `limit.links` within `limit.windowMs` (counted
 * in the ledger, so by every instance together): then how long until the oldest of those leaves the window.
 */
export async function createOwnExtensionLink(
  store: ConsoleStore,
  memberId: string,
  origin: string,
  now: number,
  limit: { links: number; windowMs: number },
): Promise<{ link: ExtensionLink } | { waitMs: number }> {
  const { record, link } = newExtensionLink(memberId, memberId, origin, now);
  const made = await store.createLimitedLink(record, limit.links, now - limit.windowMs);
  return made.stored ? { link } : { waitMs: Math.max(1000, made.oldestAt + limit.windowMs - now) };
}

/**
 * A used extension link presented again (here or on the consent page) may have been stolen, or
 * the answer to its redemption lost: the grant that redemption issued (here, or through the
 * code of an assistant's consent page) is revoked, as for an authorization code used twice
 * (MemberAuthorizationServer.revokeReusedGrant), and the revocation audited. Nothing for a link
 * that is not used, or whose grant ended already.
 */
export async function revokeRedemptionOfUsedLink(
  store: ConsoleStore,
  server: MemberAuthorizationServer,
  codeHash: string,
  presented: { at: number; address: string; clientId: string },
): Promise<void> {
  const used = await store.usedLink(codeHash, 'extension');
  if (!used || !(await server.revokeReusedGrant(used.grantId, 'sign-in link', { clientId: presented.clientId, member: used.memberId }))) return;
  const member = await store.member(used.memberId);
  await store.audit({
    at: presented.at,
    actorId: null,
    actorName: null,
    action: 'sign_in_revoked',
    target: used.memberId,
    detail: { name: member?.name ?? null, grant: used.grantId, reason: 'extension_link_used_again' },
    address: presented.address,
  });
}

const RedeemBody = z.object({ code: z.string().min(1).max(200), client_id: z.string().min(1).max(200) }).strict();

export interface ExtensionLinkDeps {
  /** The authorization server; undefined when OAuth is off (plain http on a public address). */
  provider: (req: Request) => MemberAuthorizationServer | undefined;
  /** The /v1 API's resource URL, which the grant is bound to. */
  apiResource: (req: Request) => URL;
  ledger: Ledger;
  logger: Logger;
  now: () => number;
}

const oauthError = (res: express.Response, status: number, error: string, description: string) =>
  void res.status(status).set('Cache-Control', 'no-store').json({ error, error_description: description });

export function extensionLinkRouter({ provider, apiResource, ledger, logger, now }: ExtensionLinkDeps): express.Router {
  const router = express.Router();

  router.get(CONNECT_PAGE_PATH, (_req, res) => {
    res
      .set({ 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'", 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' })
      .type('html')
      .send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connect the Redline extension</title>
<style>body { font: 16px/1.5 system-ui, sans-serif; max-width: 34rem; margin: 3rem auto; padding: 0 1rem; }</style></head>
<body><h1>Connect the Redline extension</h1>
<p>This is a one-time sign-in link for the Redline browser extension. Copy the whole address from the address bar,
open the extension's options (right-click the Redline icon, then <em>Options</em>), and paste it under <em>Sign in</em>.</p>
<p>The link works once, within 24 hours of being made. Nothing has been sent to the server by opening this page.</p>
</body></html>`);
  });

  router.post(EXTENSION_LINK_PATH, express.json({ limit: '4kb' , verify: refuseNonUtf8 }), async (req, res) => {
    const parsed = RedeemBody.safeParse(req.body ?? {});
    if (!parsed.success) return oauthError(res, 400, 'invalid_request', 'Send {"code": "<sign-in code>", "client_id": "<your registered client id>"}.');
    const server = provider(req);
    if (!server) return oauthError(res, 503, 'temporarily_unavailable', 'Sign-in is off on this server: its administrator must set BFF_PUBLIC_URL to its https address.');
    const client = (await server.clientsStore.getClient(parsed.data.client_id)) as OAuthClientInformationFull | undefined;
    if (!client) return oauthError(res, 401, 'invalid_client', 'This extension is not registered with the server (it may have been reset). Register again.');
    // Checked before the link is used up: a grant needs a redirect URI, which registrations made before they were required may lack.
    if (client.redirect_uris.length === 0) return oauthError(res, 401, 'invalid_client', 'This extension was registered without a redirect URI. Register again.');

    const store = await ledger.consoleStore();
    const codeHash = hashSecret(parsed.data.code.trim());
    const entry = (member: MemberRecord | undefined, action: string, detail: Record<string, unknown>) =>
      ({ at: now(), actorId: member?.id ?? null, actorName: member?.name ?? null, action, target: member?.id ?? null, detail, address: req.ip ?? '' });
    const refuse = async () => {
      await revokeRedemptionOfUsedLink(store, server, codeHash, { at: now(), address: req.ip ?? '', clientId: client.client_id });
      await store.audit(entry(undefined, 'sign_in_refused', { method: 'extension_link' }));
      oauthError(res, 400, 'invalid_grant', 'This sign-in link or code was already used, has expired or is unknown. Ask your administrator for a new one.');
    };

    const memberId = await store.linkMember(codeHash, now(), 'extension');
    const member = memberId && (await store.member(memberId));
    if (!member || member.revokedAt) return refuse();
    // The grant first, the link used up last (with its audit entry and the grant's id): a failure in between leaves the link working.
    const { grantId, tokens } = await server.grantFor(client, member.id, apiResource(req).href);
    let used;
    try {
      used = await store.consumeLink(codeHash, now(), 'extension', entry(member, 'extension_signed_in', { method: 'link', client: client.client_name ?? client.client_id }), grantId);
    } finally {
      if (!used) await server.revokeToken(client, { token: tokens.refresh_token!, token_type_hint: 'refresh_token' }).catch(() => {});
    }
    // Used meanwhile (by a redemption at the same time) or expired: refused, and the other redemption's grant revoked too, as for a code.
    if (!used) return refuse();
    logger.info({ member: member.id, clientId: client.client_id }, 'extension signed in with a link');
    res.set('Cache-Control', 'no-store').json({ ...tokens, member: { id: member.id, name: member.name } });
  });
  return router;
}
