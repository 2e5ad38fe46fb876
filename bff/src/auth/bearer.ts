import type { Request, RequestHandler } from 'express';
import { authenticate, looksLikeToken, memberTokenProblem } from '../members.ts';
import type { Ledger, MemberRecord } from '../storage/ledger.ts';
import { ALL_SCOPES, SCOPES, type Scope } from './scopes.ts';

/** Who is calling: a member, by their member token (local clients) or an OAuth access token (hosted clients). */
export interface Caller {
  member: MemberRecord;
  via: 'member_token' | 'oauth';
  clientId?: string;
  /** What an OAuth grant allows (auth/scopes.ts); undefined for a member token, which allows everything. */
  scopes?: readonly Scope[];
}

/** Checks OAuth access tokens; throws InvalidAccessToken with the reason a client may see. */
export interface AccessTokenVerifier {
  verify(token: string, resource: URL): Promise<Caller>;
}

export class InvalidAccessToken extends Error {}

/**
 * The token of an `Authorization: Bearer <token>` header, and what is wrong with the header
 * when it cannot be used as sent (no Bearer scheme, a member token cut short when copied).
 * Both sign-in paths, /v1 and the MCP server, read the header so.
 */
export function readBearer(header: string | undefined): { token?: string; problem?: string } {
  if (header === undefined) return {};
  const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  if (token === undefined) return { problem: 'Send the token as "Authorization: Bearer <token>".' };
  return { token, problem: memberTokenProblem(token) };
}

/**
 * RFC 6750 section 2.3 lets a token ride in the query (`?access_token=`), where access logs,
 * proxies and browser histories keep it; OAuth 2.1 drops that, and the upstream's MCP server
 * refuses it. So do the API and the MCP endpoint, even beside a valid header.
 */
export const CREDENTIALS_IN_URL = 'Do not put credentials in the URL, where logs and browser histories keep them: send them as "Authorization: Bearer <token>".';

export function hasCredentialInUrl(target: string | undefined): boolean {
  const query = target?.indexOf('?') ?? -1;
  if (query === -1) return false;
  return new URLSearchParams(target!.slice(query + 1).split('#')[0]).has('access_token');
}

/**
 * The `WWW-Authenticate` of a refusal, for the API and the MCP endpoint alike: the
 * protected-resource metadata (RFC 9728 section 5.1) and the scopes to ask for (the MCP
 * specification's scope selection: a client signs in for what the challenge names first), and
 * `error="invalid_token"` with its reason only when a bearer token came (RFC 6750 section 3.1:
 * none for no token or another scheme). Without OAuth (member tokens only) there is neither to name.
 */
export function bearerChallenge(tokenSent: boolean, reason: string | undefined, metadataUrl: URL | undefined): string {
  const parameters = [
    ...(tokenSent ? ['error="invalid_token"', `error_description="${quoted(reason ?? '')}"`] : []),
    ...(metadataUrl ? [`scope="${ALL_SCOPES.join(' ')}"`, `resource_metadata="${metadataUrl.href}"`] : []),
  ];
  return parameters.length > 0 ? `Bearer ${parameters.join(', ')}` : 'Bearer';
}

/**
 * Why a signed-in caller may not make a call, or undefined when it may: an OAuth grant
 * without the scope of the product the call spends (a member token may do everything).
 */
export function missingScope(caller: { scopes?: readonly Scope[] }, needed: Scope): string | undefined {
  if (!caller.scopes || caller.scopes.includes(needed)) return undefined;
  return `This sign-in was not allowed to ${SCOPES[needed].consent}. Sign in again and allow the "${needed}" scope.`;
}

/**
 * The `WWW-Authenticate` of a 403 for a missing scope (RFC 6750 section 3.1; the MCP
 * specification's scope challenge): the scopes to ask for, the grant's and the one needed,
 * so that a client can sign in again for them (step-up) and lose nothing it had.
 */
export function scopeChallenge(granted: readonly Scope[], needed: Scope, reason: string, metadataUrl: URL | undefined): string {
  const scopes = [...new Set([...granted, needed])];
  return ['Bearer error="insufficient_scope"', `scope="${scopes.join(' ')}"`, `error_description="${quoted(reason)}"`, ...(metadataUrl ? [`resource_metadata="${metadataUrl.href}"`] : [])].join(', ');
}

export interface BearerOptions {
  ledger: Ledger;
  /** The OAuth access token verifier; undefined when OAuth is off (member tokens only). */
  accessTokens?: (req: Request) => AccessTokenVerifier | undefined;
  resource(req: Request): URL;
  /** Undefined when OAuth is off: the challenge then names no metadata. */
  resourceMetadataUrl(req: Request): URL | undefined;
}

const quoted = (value: string) => value.replace(/["\\]/g, '');

/**
 * `Authorization: Bearer <member token | OAuth access token>`. A refusal is a 401 whose
 * WWW-Authenticate names the protected-resource metadata (RFC 9728 section 5.1), so an MCP
 * client can discover how to sign in; `error="invalid_token"` when a token was sent but is
 * unknown, expired, revoked or meant for another resource (RFC 6750 section 3.1).
 */
export function requireCaller(options: BearerOptions): RequestHandler {
  return async (req, res, next) => {
    if (hasCredentialInUrl(req.originalUrl)) {
      res.locals.errorCode = 'invalid_request';
      return void res.status(400).json({ error: { code: 'invalid_request', message: CREDENTIALS_IN_URL } });
    }
    const { token, problem } = readBearer(req.get('authorization'));
    let reason = problem;
    if (token !== undefined && !problem) {
      try {
        const caller = await identify(options, token, req);
        if (caller) {
          res.locals.member = caller.member;
          res.locals.caller = caller;
          return next();
        }
        reason = 'This member token is unknown or revoked. Ask your administrator for a new one.';
      } catch (error) {
        if (!(error instanceof InvalidAccessToken)) return next(error);
        reason = error.message;
      }
    }
    res.set('WWW-Authenticate', bearerChallenge(token !== undefined, reason, options.resourceMetadataUrl(req)));
    res.locals.errorCode = 'unauthorized';
    res.status(401).json({
      error: {
        code: 'unauthorized',
        message: reason ?? 'Sign in: send your member token as "Authorization: Bearer rl_...", or let your MCP client sign in with OAuth.',
      },
    });
  };
}

async function identify(options: BearerOptions, token: string, req: Request): Promise<Caller | undefined> {
  if (looksLikeToken(token)) {
    const member = await authenticate(options.ledger, token);
    return member && { member, via: 'member_token' };
  }
  const verifier = options.accessTokens?.(req);
  if (!verifier) return undefined;
  return verifier.verify(token, options.resource(req));
}
