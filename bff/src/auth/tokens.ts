import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, errors, exportJWK, generateKeyPair, importJWK, jwtVerify, type CryptoKey, type JWK } from 'jose';
import type { OAuthStore } from '../storage/oauth-store.ts';

/**
 * Token formats of the authorization server, all through jose:
 * - access tokens: JWTs (RFC 9068, `typ: at+jwt`) signed ES256 with the key kept in the
 *   ledger (so every instance verifies every other's), bound by `aud` to the MCP URL;
 * - consent requests: short JWTs carrying a validated authorization request through the
 *   consent page, so nothing is stored before the member approves;
 * - codes and refresh tokens: 256 random bits, stored as SHA-256 hashes.
 */

const ALG = 'ES256';
const ACCESS_TOKEN_TYPE = 'at+jwt';
const CONSENT_TYPE = 'redline-consent+jwt';
const CONSENT_SECONDS = 10 * 60;

export const randomToken = () => randomBytes(32).toString('base64url');
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export interface AccessClaims {
  memberId: string;
  clientId: string;
  grantId: string;
  scopes: string[];
  resource: string;
  expiresAt: number;
}

export interface ConsentRequest {
  clientId: string;
  redirectUri: string;
  /** Whether the authorization request named redirect_uri (then /token must repeat it, RFC 6749 section 4.1.3). */
  redirectUriSent: boolean;
  codeChallenge: string;
  state?: string | undefined;
  scopes: string[];
  resource: string;
}

/** Why a presented access token is refused: shown to the client in WWW-Authenticate. */
export class AccessTokenRefused extends Error {}

export class TokenSigner {
  private constructor(
    private readonly kid: string,
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    private readonly issuer: string,
  ) {}

  /** Loads the stored signing key, or creates and stores one on the first start. */
  static async open(store: OAuthStore, issuer: string): Promise<TokenSigner> {
    const { privateKey } = await generateKeyPair(ALG, { extractable: true });
    const candidate = { kid: randomUUID(), privateJwk: (await exportJWK(privateKey)) as Record<string, unknown> };
    const stored = await store.signingKey(candidate);
    const privateJwk = stored.privateJwk as JWK;
    const { d: _private, ...publicJwk } = privateJwk;
    return new TokenSigner(stored.kid, (await importJWK(privateJwk, ALG)) as CryptoKey, (await importJWK(publicJwk, ALG)) as CryptoKey, issuer);
  }

  async accessToken(claims: Omit<AccessClaims, 'expiresAt'>, lifetimeSeconds: number): Promise<{ token: string; expiresAt: number }> {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ client_id: claims.clientId, scope: claims.scopes.join(' '), gid: claims.grantId })
      .setProtectedHeader({ alg: ALG, typ: ACCESS_TOKEN_TYPE, kid: this.kid })
      .setIssuer(this.issuer)
      .setAudience(claims.resource)
      .setSubject(claims.memberId)
      .setIssuedAt(now)
      .setExpirationTime(now + lifetimeSeconds)
      .setJti(randomUUID())
      .sign(this.privateKey);
    return { token, expiresAt: now + lifetimeSeconds };
  }

  /**
   * Checks signature, issuer, audience (the resource it must be bound to) and expiry.
   * `ignoreExpiry` is for revocation, where an expired token may still name its grant.
   */
  async verifyAccessToken(token: string, resource: string | undefined, { ignoreExpiry = false } = {}): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        algorithms: [ALG],
        typ: ACCESS_TOKEN_TYPE,
        issuer: this.issuer,
        ...(resource === undefined ? {} : { audience: resource }),
        ...(ignoreExpiry ? { currentDate: new Date(0) } : {}),
        requiredClaims: ['sub', 'exp', 'aud', 'client_id', 'gid'],
      });
      return {
        memberId: payload.sub!,
        clientId: String(payload.client_id),
        grantId: String(payload.gid),
        scopes: String(payload.scope ?? '').split(' ').filter(Boolean),
        resource: Array.isArray(payload.aud) ? payload.aud[0]! : payload.aud!,
        expiresAt: payload.exp!,
      };
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new AccessTokenRefused('The access token has expired. Refresh it or sign in again.');
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') {
        throw new AccessTokenRefused('The access token was issued for another resource than the one it was sent to (the API and the MCP server each have their own). Sign in again from the client that calls this one.');
      }
      throw new AccessTokenRefused('The access token is not valid for this server.');
    }
  }

  async consentRequest(request: ConsentRequest): Promise<string> {
    return new SignJWT({ ...request })
      .setProtectedHeader({ alg: ALG, typ: CONSENT_TYPE, kid: this.kid })
      .setIssuer(this.issuer)
      .setAudience(`${this.issuer}#consent`)
      .setIssuedAt()
      .setExpirationTime(`${CONSENT_SECONDS}s`)
      .sign(this.privateKey);
  }

  /** The authorization request behind a consent form; undefined when forged or older than 10 minutes. */
  async readConsentRequest(value: string): Promise<ConsentRequest | undefined> {
    try {
      const { payload } = await jwtVerify(value, this.publicKey, { algorithms: [ALG], typ: CONSENT_TYPE, issuer: this.issuer, audience: `${this.issuer}#consent` });
      return {
        clientId: String(payload.clientId),
        redirectUri: String(payload.redirectUri),
        // Consent forms made before this field existed: held to the stricter rule.
        redirectUriSent: payload.redirectUriSent !== false,
        codeChallenge: String(payload.codeChallenge),
        state: payload.state === undefined ? undefined : String(payload.state),
        scopes: (payload.scopes as string[]) ?? [],
        resource: String(payload.resource),
      };
    } catch {
      return undefined;
    }
  }
}
