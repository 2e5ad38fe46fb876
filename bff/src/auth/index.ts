import type { IncomingMessage } from 'node:http';
import express, { type Request } from 'express';
import { rateLimit } from 'express-rate-limit';
import { AccessDeniedError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { BffConfig } from '../config.ts';
import type { Logger } from '../logging.ts';
import { authenticate } from '../members.ts';
import { hashSecret } from '../console/sessions.ts';
import type { Ledger, MemberRecord } from '../storage/ledger.ts';
import type { OAuthStore } from '../storage/oauth-store.ts';
import { authorizationRequestCheck, authorizationResponse, codeVerifierCheck, type AuthorizationOutcome } from './authorize-request.ts';
import { requireCaller } from './bearer.ts';
import { extensionLinkRouter, revokeRedemptionOfUsedLink } from './extension-link.ts';
import { CONSENT_PATH, renderConsentPage } from './consent-page.ts';
import { plainErrorDescriptions } from './plain-errors.ts';
import { MemberAuthorizationServer } from './provider.ts';
import { apiProtectedResourceMetadataUrl, apiResourceUrl, mcpResourceUrl, protectedResourceMetadataUrl, publicUrlResolver } from './public-url.ts';
import { ALL_SCOPES } from './scopes.ts';
import { TokenSigner } from './tokens.ts';

export interface AuthDeps {
  config: BffConfig;
  ledger: Ledger;
  logger: Logger;
  now?: () => number;
}

interface AuthorizationServer {
  provider: MemberAuthorizationServer;
  signer: () => Promise<TokenSigner>;
  issuer: URL;
  /** Undefined when the public URL cannot be an OAuth issuer (plain http on a non-loopback host). */
  router: express.Router | undefined;
}

const once = <T>(make: () => Promise<T>) => {
  let value: Promise<T> | undefined;
  return () => (value ??= make().catch((error) => {
    value = undefined;
    throw error;
  }));
};

/**
 * Sign-in for the MCP endpoint. `requireCaller` accepts member tokens and OAuth access
 * tokens; `router` is the OAuth 2.1 authorization server for members (metadata, dynamic
 * registration, authorize with consent, token, revoke) and must be mounted before the
 * extension-origin check, since browsers and hosted clients call it. Built on the first
 * request, when the public URL is known.
 */
export function createAuth({ config, ledger, logger, now = Date.now }: AuthDeps) {
  const publicUrl = publicUrlResolver(config);
  const store: () => Promise<OAuthStore> = once(() => ledger.oauthStore());
  let built: AuthorizationServer | undefined;

  const build = (req: IncomingMessage): AuthorizationServer => {
    const issuer = publicUrl(req);
    const resource = mcpResourceUrl(issuer);
    const signer = once(async () => TokenSigner.open(await store(), issuer.href));
    const apiResource = apiResourceUrl(issuer);
    const provider = new MemberAuthorizationServer({ store, signer, issuer, resources: [resource.href, apiResource.href], ...config.oauth, logger });
    let router: express.Router | undefined;
    try {
      const metadata = {
        ...createOAuthMetadata({ provider, issuerUrl: issuer, scopesSupported: ALL_SCOPES }),
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        authorization_response_iss_parameter_supported: true,
      };
      router = express.Router();
      router.get('/.well-known/oauth-authorization-server', (_req, res) => {
        res.set({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=300' }).json(metadata);
      });
      // The /v1 API is a protected resource too (RFC 9728): the browser extension signs in for it.
      router.get(new URL(apiProtectedResourceMetadataUrl(issuer)).pathname, (_req, res) => {
        res.set({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=300' }).json({
          resource: apiResource.href,
          authorization_servers: [issuer.href],
          bearer_methods_supported: ['header'],
          scopes_supported: ALL_SCOPES,
          resource_name: 'Redline API (browser extension)',
        });
      });
      router.use(
        authorizationRequestCheck(new URL(metadata.authorization_endpoint).pathname, {
          clients: provider.clientsStore,
          issuer,
          resourceProblem: (requested) => provider.resourceProblem(requested),
        }),
      );
      router.use(codeVerifierCheck(new URL(metadata.token_endpoint).pathname));
      router.use(['/token', '/revoke'], plainErrorDescriptions('send the parameters as an application/x-www-form-urlencoded body'));
      router.use('/register', plainErrorDescriptions('send the client metadata as a JSON object'));
      router.use(
        mcpAuthRouter({
          provider,
          issuerUrl: issuer,
          resourceServerUrl: resource,
          resourceName: 'Redline (team text analysis)',
          scopesSupported: ALL_SCOPES,
          // Limited in front of this router (see `limits`), where the limiters are created once.
          authorizationOptions: { rateLimit: false },
          tokenOptions: { rateLimit: false },
          clientRegistrationOptions: { rateLimit: false },
          revocationOptions: { rateLimit: false },
        }),
      );
      router.post(CONSENT_PATH, express.urlencoded({ extended: false, limit: '16kb' }), async (req, res) => {
        await answerConsent(req, res, { provider, signer, issuer, store, ledger, now });
      });
    } catch (error) {
      logger.warn({ reason: (error as Error).message }, 'OAuth sign-in is off: set BFF_PUBLIC_URL to the https address clients use');
      router = undefined;
    }
    return { provider, signer, issuer, router };
  };
  const server = (req: IncomingMessage) => (built ??= build(req));

  const router = express.Router();
  // Per client address, as the SDK's defaults: sign-in pages, tokens, revocation, and registrations (stricter).
  const limit = (windowMinutes: number, requests: number) =>
    rateLimit({
      windowMs: windowMinutes * 60_000,
      limit: requests,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      handler: (_req, res) => void res.status(429).json({ error: 'too_many_requests', error_description: 'Too many requests from this address. Try again later.' }),
    });
  router.use('/authorize', limit(15, 100));
  router.use(CONSENT_PATH, limit(15, 60));
  router.use('/token', limit(15, 50));
  router.use('/revoke', limit(15, 50));
  router.use('/register', limit(60, 20));
  router.use('/oauth/extension-link', limit(15, 30));
  router.use(
    extensionLinkRouter({
      provider: (req) => (server(req).router ? server(req).provider : undefined),
      apiResource: (req) => apiResourceUrl(publicUrl(req)),
      ledger,
      logger,
      now,
    }),
  );
  router.use((req, res, next) => {
    const oauth = server(req).router;
    if (!oauth) return next();
    oauth(req, res, next);
  });

  const mcpResourceMetadataUrl = (req: IncomingMessage) => (server(req).router ? protectedResourceMetadataUrl(publicUrl(req)) : undefined);
  return {
    router,
    requireCaller: requireCaller({
      ledger,
      accessTokens: (req) => (server(req).router ? server(req).provider : undefined),
      resource: (req) => mcpResourceUrl(publicUrl(req)),
      resourceMetadataUrl: mcpResourceMetadataUrl,
    }),
    /** Where the MCP endpoint's protected-resource metadata is; undefined when OAuth is off. */
    mcpResourceMetadataUrl,
    /**
     * The caller behind an OAuth access token for the /v1 API (the extension's sign-in): the
     * member and the grant's scopes; undefined when OAuth is off. Throws InvalidAccessToken, with a reason for the client,
     * when the token is expired, revoked, or bound to another resource (an MCP token).
     */
    apiCaller: async (req: IncomingMessage, token: string) => {
      const { router: oauth, provider } = server(req);
      if (!oauth) return undefined;
      return provider.verify(token, apiResourceUrl(publicUrl(req)));
    },
    apiResourceMetadataUrl: (req: IncomingMessage) => (server(req).router ? apiProtectedResourceMetadataUrl(publicUrl(req)) : undefined),
    /** Revokes every OAuth grant of a member (their tokens are refused anyway once the member is revoked). */
    revokeMemberGrants: async (memberId: string) => (await store()).revokeMemberGrants(memberId, Date.now()),
  };
}

interface ConsentDeps {
  provider: MemberAuthorizationServer;
  signer: () => Promise<TokenSigner>;
  issuer: URL;
  store: () => Promise<OAuthStore>;
  ledger: Ledger;
  now: () => number;
}

/** The member's decision on the consent page: a code (or access_denied) back to the client. */
async function answerConsent(req: Request, res: express.Response, { provider, signer, issuer, store, ledger, now }: ConsentDeps): Promise<void> {
  const origin = req.get('origin');
  if (origin !== undefined && origin !== issuer.origin) {
    return void res.status(403).type('text/plain').send('This form can only be sent from the Redline sign-in page.');
  }
  const body = (req.body ?? {}) as Record<string, unknown>;
  const requestValue = typeof body.request === 'string' ? body.request : '';
  const request = await (await signer()).readConsentRequest(requestValue);
  const client = request && (await (await store()).getClient(request.clientId));
  if (!request || !client) {
    return void res.status(400).type('text/plain').send('This sign-in request has expired or is not valid. Start the sign-in again from your application.');
  }
  const answer = (outcome: AuthorizationOutcome) =>
    res.redirect(302, authorizationResponse(request.redirectUri, issuer, request.state, outcome));
  if (body.decision !== 'approve') return answer(new AccessDeniedError('The member declined the sign-in.'));
  const credential = typeof body.credential === 'string' ? body.credential.trim() : '';
  const signIn = credential ? await signInOfCredential(ledger, provider, credential, req, { id: request.clientId, name: String(client.client_name ?? client.client_id) }, now) : undefined;
  // The code first, the link used up last (with the id of the grant the code opens): a failure in between leaves the link working (the code is never sent).
  const issued = signIn && (await provider.issueCode(request, signIn.member.id));
  if (!signIn || !issued || !(await signIn.complete(issued.grantId))) {
    const error = credential
      ? 'That member token or sign-in link is unknown, revoked, expired or already used. Check it, or make a new link in the console (My usage) or ask your administrator.'
      : 'Enter your member token or a sign-in link to approve.';
    return renderConsentPage(res, { client, redirectUri: request.redirectUri, scopes: request.scopes, request: requestValue, error }, 401);
  }
  answer({ code: issued.code });
}

/**
 * The member behind what was typed on the consent page: a member token, or a one-time sign-in
 * link (or its bare code) made in the console. `complete` uses a link up, once the sign-in's
 * code is stored, with the id of the grant that code opens (so that the link presented again
 * revokes it), and says whether it still could. Every sign-in, granted or refused, by token
 * or link, goes to the audit log as the extension's does: an assistant holds the member's
 * access for the refresh token's life, which an administrator needs to be able to see.
 */
async function signInOfCredential(
  ledger: Ledger,
  provider: MemberAuthorizationServer,
  credential: string,
  req: Request,
  client: { id: string; name: string },
  now: () => number,
): Promise<{ member: MemberRecord; complete: (grantId: string) => Promise<boolean> } | undefined> {
  const store = await ledger.consoleStore();
  const entry = (member: MemberRecord | undefined, method: 'token' | 'link') => ({
    at: now(),
    actorId: member?.id ?? null,
    actorName: member?.name ?? null,
    action: member ? 'assistant_signed_in' : 'sign_in_refused',
    target: member?.id ?? null,
    detail: member ? { method, client: client.name } : { method: `consent_${method}` },
    address: req.ip ?? '',
  });
  if (credential.startsWith('rl_')) {
    const member = await authenticate(ledger, credential);
    if (!member) {
      await store.audit(entry(undefined, 'token'));
      return undefined;
    }
    return {
      member,
      complete: async () => {
        await store.audit(entry(member, 'token'));
        return true;
      },
    };
  }
  const code = signInCodeOf(credential);
  const codeHash = code && hashSecret(code);
  const memberId = codeHash ? await store.linkMember(codeHash, now(), 'extension') : undefined;
  const member = memberId && (await store.member(memberId));
  // A link the extension redeemed, presented again here: its grant is revoked as at the extension's endpoint.
  const refuseLink = async () => {
    if (codeHash) await revokeRedemptionOfUsedLink(store, provider, codeHash, { at: now(), address: req.ip ?? '', clientId: client.id });
    await store.audit(entry(undefined, 'link'));
  };
  if (!codeHash || !member || member.revokedAt) {
    await refuseLink();
    return undefined;
  }
  return {
    member,
    complete: async (grantId) => {
      if (await store.consumeLink(codeHash, now(), 'extension', entry(member, 'link'), grantId)) return true;
      await refuseLink();
      return false;
    },
  };
}

/** The code of a sign-in link (`…/connect#code=…`), or the credential itself when it is a bare code. */
export function signInCodeOf(credential: string): string | undefined {
  const fragment = /#(?:.*&)?code=([A-Za-z0-9_-]+)/.exec(credential);
  if (fragment) return fragment[1];
  return /^[A-Za-z0-9_-]{20,200}$/.test(credential) ? credential : undefined;
}
