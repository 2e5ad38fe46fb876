import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { InvalidGrantError, InvalidRequestError, InvalidScopeError, InvalidTargetError, InvalidTokenError, OAuthError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describeError, type Logger } from '../logging.ts';
import type { AuthorizationCodeRecord, OAuthStore } from '../storage/oauth-store.ts';
import { authorizationResponse } from './authorize-request.ts';
import type { AccessTokenVerifier, Caller } from './bearer.ts';
import { InvalidAccessToken } from './bearer.ts';
import { clientsStore } from './clients.ts';
import { renderConsentPage } from './consent-page.ts';
import { ALL_SCOPES, beyondGrant, grantedScopes, requestedScopes } from './scopes.ts';
import { AccessTokenRefused, TokenSigner, randomToken, tokenHash } from './tokens.ts';

export interface ProviderOptions {
  store: () => Promise<OAuthStore>;
  signer: () => Promise<TokenSigner>;
  /** This server's issuer identifier, sent back as `iss` with every authorization response (RFC 9207). */
  issuer: URL;
  /**
   * The resources tokens are issued for (RFC 8707): the MCP endpoint's URL first (the
   * default when a client names none), then the /v1 API's (the browser extension).
   */
  resources: [string, ...string[]];
  accessTokenSeconds: number;
  refreshTokenDays: number;
  logger: Logger;
}

const CODE_SECONDS = 60;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The BFF's OAuth 2.1 authorization server for its members, plugged into the MCP SDK's
 * handlers (which parse requests, check PKCE S256 and answer OAuth errors). Here: binding to
 * the one resource (RFC 8707), the consent page, single-use codes, short-lived JWT access
 * tokens, rotating refresh tokens (a replayed one revokes its grant) and revocation. A grant
 * is only as alive as its member: revoking a member refuses all of its tokens at once.
 */
export class MemberAuthorizationServer implements OAuthServerProvider, AccessTokenVerifier {
  readonly clientsStore;

  constructor(private readonly options: ProviderOptions) {
    this.clientsStore = clientsStore(options.store, options.logger);
  }

  /**
   * Binds the request to this BFF's MCP URL, then shows the consent page. A failure goes back
   * to the client here rather than to the SDK's handler, whose error redirects lack `iss`.
   */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    try {
      const resource = this.#checkResource(params.resource?.href);
      // Checked in front of the SDK too (authorize-request.ts); here for a request that reached the provider otherwise.
      const requested = requestedScopes(params.scopes?.join(' '));
      if (requested.problem !== undefined) throw new InvalidScopeError(requested.problem);
      const { scopes } = requested;
      const request = await (await this.options.signer()).consentRequest({
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        // The SDK fills in a client's only redirect URI when the request named none; /token must repeat one that was named.
        redirectUriSent: redirectUriSent(res),
        codeChallenge: params.codeChallenge,
        state: params.state,
        scopes,
        resource,
      });
      renderConsentPage(res, { client, redirectUri: params.redirectUri, scopes, request });
    } catch (error) {
      const refusal = error instanceof OAuthError ? error : this.#serverError(client, error);
      res.redirect(302, authorizationResponse(params.redirectUri, this.options.issuer, params.state, refusal));
    }
  }

  #serverError(client: OAuthClientInformationFull, error: unknown): ServerError {
    this.options.logger.error({ clientId: client.client_id, error: describeError(error) }, 'authorization request failed');
    return new ServerError('The server could not start the sign-in; try again later');
  }

  /** Why tokens cannot be issued for `resource` (RFC 8707), or undefined when they can. */
  resourceProblem(resource: string): OAuthError | undefined {
    try {
      this.#checkResource(resource);
      return undefined;
    } catch (error) {
      if (error instanceof OAuthError) return error;
      throw error;
    }
  }

  /**
   * Issues a code once a member approved on the consent page, with the id of the grant its
   * exchange will open: a one-time link the member signed in with keeps it (revokeReusedGrant).
   */
  async issueCode(
    request: { clientId: string; redirectUri: string; redirectUriSent: boolean; codeChallenge: string; scopes: string[]; resource: string },
    memberId: string,
  ): Promise<{ code: string; grantId: string }> {
    const code = randomToken();
    const grantId = randomUUID();
    await (await this.options.store()).saveCode({
      codeHash: tokenHash(code),
      clientId: request.clientId,
      memberId,
      redirectUri: request.redirectUri,
      redirectUriSent: request.redirectUriSent,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scopes: request.scopes,
      expiresAt: Date.now() + CODE_SECONDS * 1000,
      grantId,
    });
    return { code, grantId };
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    const stored = await (await this.options.store()).findCode(tokenHash(code));
    if (!stored || stored.clientId !== client.client_id) throw new InvalidGrantError('Unknown authorization code');
    return stored.codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    return (await this.#exchangeCode(client, code, redirectUri, resource)).tokens;
  }

  async #exchangeCode(client: OAuthClientInformationFull, code: string, redirectUri?: string, resource?: URL): Promise<{ grantId: string; tokens: OAuthTokens }> {
    const store = await this.options.store();
    const now = Date.now();
    const stored = await store.findCode(tokenHash(code));
    if (!stored || stored.clientId !== client.client_id) throw new InvalidGrantError('Unknown authorization code');
    if (stored.usedAt !== null) return this.#refuseReusedCode(stored);
    if (stored.expiresAt <= now) throw new InvalidGrantError('The authorization code has expired or was withdrawn; start the sign-in again');
    // RFC 6749 section 4.1.3 (and OAuth 2.1): present and identical when the authorization request named one.
    if (redirectUri === undefined && stored.redirectUriSent) throw new InvalidRequestError('redirect_uri is required: the authorization request included one');
    if (redirectUri !== undefined && redirectUri !== stored.redirectUri) throw new InvalidGrantError('redirect_uri does not match the authorization request');
    if (resource !== undefined && this.#checkResource(resource.href) !== stored.resource) throw new InvalidTargetError('resource does not match the authorization request');
    if (!(await store.activeMember(stored.memberId))) throw new InvalidGrantError('The member who approved this sign-in was revoked');

    const grant = { id: stored.grantId ?? randomUUID(), clientId: client.client_id, memberId: stored.memberId, resource: stored.resource, scopes: stored.scopes, createdAt: now };
    const refreshToken = randomToken();
    const exchanged = await store.exchangeCode(stored.codeHash, grant, { tokenHash: tokenHash(refreshToken), grantId: grant.id, expiresAt: this.#refreshExpiry(now) }, now);
    if (!exchanged) {
      // Presented twice at once: the other presentation used the code first (or it just expired).
      const latest = await store.findCode(stored.codeHash);
      if (latest && latest.usedAt !== null) return this.#refuseReusedCode(latest);
      throw new InvalidGrantError('The authorization code has expired or was withdrawn; start the sign-in again');
    }
    this.options.logger.info({ clientId: client.client_id, member: stored.memberId, grant: grant.id }, 'oauth grant issued');
    return { grantId: grant.id, tokens: await this.#tokens(grant, refreshToken) };
  }

  async #refuseReusedCode(code: AuthorizationCodeRecord): Promise<never> {
    await this.revokeReusedGrant(code.grantId, 'authorization code', { clientId: code.clientId, member: code.memberId });
    throw new InvalidGrantError('The authorization code was already used; start the sign-in again');
  }

  /**
   * A one-time credential presented a second time (an authorization code, an extension sign-in
   * link) may have been stolen, or the answer to its first use lost: the grant that first use
   * issued is revoked (RFC 6749 section 4.1.2), and nobody keeps a grant they should not have.
   * A link used on the consent page names a grant its code may not have opened yet: that code
   * is withdrawn instead. True when this ended a grant that was still active, or withdrew its code.
   */
  async revokeReusedGrant(grantId: string | null, credential: 'authorization code' | 'sign-in link', context: Record<string, unknown>): Promise<boolean> {
    const revoked = grantId !== null && (await (await this.options.store()).revokeGrant(grantId, Date.now()));
    this.options.logger.warn({ ...context, grant: grantId, revoked }, `${credential} reused${revoked ? '; grant revoked' : ''}`);
    return revoked;
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    const store = await this.options.store();
    const now = Date.now();
    const owner = await store.grantOfRefreshToken(tokenHash(refreshToken));
    if (!owner || owner.clientId !== client.client_id) throw new InvalidGrantError('Unknown refresh token');
    // RFC 6749 section 6: a refresh cannot widen what the member approved (a narrower request gets the grant's, named in `scope`).
    if (beyondGrant(scopes ?? [], owner.scopes).length > 0) throw new InvalidScopeError(`scope may only name scopes of the grant: ${grantedScopes(owner.scopes).join(' ')}`);
    if (resource !== undefined && this.#checkResource(resource.href) !== owner.resource) throw new InvalidTargetError('resource does not match the grant');
    const next = randomToken();
    const rotation = await store.rotateRefreshToken(tokenHash(refreshToken), { tokenHash: tokenHash(next), expiresAt: this.#refreshExpiry(now) }, now);
    if (rotation.kind === 'reused') {
      this.options.logger.warn({ clientId: client.client_id, member: rotation.grant.memberId, grant: rotation.grant.id }, 'refresh token reused; grant revoked');
      throw new InvalidGrantError('The refresh token was already used; sign in again');
    }
    if (rotation.kind === 'invalid') throw new InvalidGrantError('The refresh token has expired or was revoked; sign in again');
    if (!(await store.activeMember(rotation.grant.memberId))) throw new InvalidGrantError('The member was revoked');
    if (rotation.repeated) {
      this.options.logger.info({ clientId: client.client_id, member: rotation.grant.memberId, grant: rotation.grant.id }, 'refresh token repeated within its grace (the answer to its first use was lost); its unused successor was replaced');
    }
    return this.#tokens(rotation.grant, next);
  }

  /** For the SDK's interface; the MCP endpoint uses verify(), which also checks the audience. */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    try {
      const resource = new URL(this.options.resources[0]);
      const caller = await this.verify(token, resource);
      return { token, clientId: caller.clientId!, scopes: [...(caller.scopes ?? [])], resource, expiresAt: undefined, extra: { memberId: caller.member.id } };
    } catch (error) {
      throw new InvalidTokenError(error instanceof Error ? error.message : 'invalid token');
    }
  }

  async verify(token: string, resource: URL): Promise<Caller> {
    let claims;
    try {
      claims = await (await this.options.signer()).verifyAccessToken(token, resource.href);
    } catch (error) {
      if (error instanceof AccessTokenRefused) throw new InvalidAccessToken(error.message);
      throw error;
    }
    const store = await this.options.store();
    const grant = await store.grant(claims.grantId);
    if (!grant) throw new InvalidAccessToken('The access token was revoked. Sign in again.');
    // The member first: revoking a member revokes its grants too, and "sign in again" would not help them.
    const member = await store.activeMember(grant.memberId);
    if (!member) throw new InvalidAccessToken('The member was revoked. Ask your administrator.');
    if (grant.revokedAt !== null) throw new InvalidAccessToken('The access token was revoked. Sign in again.');
    return { member, via: 'oauth', clientId: grant.clientId, scopes: grantedScopes(grant.scopes) };
  }

  /** Revoking either token ends the whole grant (RFC 7009 section 2.1 allows it; a client that signs out means all of it). */
  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const store = await this.options.store();
    let grant = request.token_type_hint === 'access_token' ? undefined : await store.grantOfRefreshToken(tokenHash(request.token));
    if (!grant) {
      const claims = await (await this.options.signer()).verifyAccessToken(request.token, undefined, { ignoreExpiry: true }).catch(() => undefined);
      grant = claims && (await store.grant(claims.grantId));
    }
    // Unknown tokens and other clients' tokens: answered the same, changing nothing (RFC 7009).
    if (!grant || grant.clientId !== client.client_id) return;
    await store.revokeGrant(grant.id, Date.now());
    this.options.logger.info({ clientId: client.client_id, member: grant.memberId, grant: grant.id }, 'oauth grant revoked');
  }

  async #tokens(grant: { id: string; clientId: string; memberId: string; resource: string; scopes: string[] }, refreshToken: string): Promise<OAuthTokens> {
    const scopes = grantedScopes(grant.scopes);
    const { token, expiresAt } = await (await this.options.signer()).accessToken(
      { memberId: grant.memberId, clientId: grant.clientId, grantId: grant.id, scopes, resource: grant.resource },
      this.options.accessTokenSeconds,
    );
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: expiresAt - Math.floor(Date.now() / 1000),
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
  }

  #refreshExpiry(now: number): number {
    return now + this.options.refreshTokenDays * DAY_MS;
  }

  /**
   * A grant for a member without the authorization-code dance, for a sign-in the member
   * proved otherwise (a one-time extension sign-in link, auth/extension-link.ts): the same
   * code path and storage as a consent, its code issued and exchanged at once. The grant's id
   * comes with the tokens, for the link to remember (revokeReusedGrant).
   */
  async grantFor(client: OAuthClientInformationFull, memberId: string, resource: string): Promise<{ grantId: string; tokens: OAuthTokens }> {
    const redirectUri = client.redirect_uris[0]!;
    const request = { clientId: client.client_id, redirectUri, redirectUriSent: true, codeChallenge: randomToken(), scopes: ALL_SCOPES, resource: this.#checkResource(resource) };
    return this.#exchangeCode(client, (await this.issueCode(request, memberId)).code, redirectUri);
  }

  /** RFC 8707: one of the resources this server issues tokens for; absent means the MCP endpoint. */
  #checkResource(requested: string | undefined): string {
    const [mcp] = this.options.resources;
    if (requested === undefined) return mcp;
    if (requested.includes('#')) throw new InvalidTargetError('resource must not have a fragment (RFC 8707 section 2)');
    const comparable = (value: string) => value.replace(/\/$/, '');
    const match = this.options.resources.find((resource) => comparable(resource) === comparable(requested));
    if (!match) throw new InvalidTargetError(`This server issues tokens only for ${this.options.resources.join(' and ')}`);
    return match;
  }
}

/** Whether the authorization request behind `res` named redirect_uri (GET query or POST form). */
function redirectUriSent(res: Response): boolean {
  const req = res.req as Response['req'] | undefined;
  if (!req) return true;
  const parameters = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> | undefined;
  return parameters?.redirect_uri !== undefined;
}
