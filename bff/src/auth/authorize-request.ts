import express, { type NextFunction, type Request, type Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidRequestError, InvalidScopeError, OAuthError, UnsupportedResponseTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { redirectUriMatches } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { requestedScopes } from './scopes.ts';

/** What an authorization request ends in: a code for the client, or a refusal. */
export type AuthorizationOutcome = { code: string } | OAuthError;

/**
 * The answer sent back to the client's redirect URI (RFC 6749 section 4.1.2): a code or an
 * error, the request's `state` when it sent one, and this server as `iss` (RFC 9207, which
 * the metadata advertises), so that a client can tell which server answered.
 */
export function authorizationResponse(redirectUri: string, issuer: URL, state: string | undefined, outcome: AuthorizationOutcome): string {
  const back = new URL(redirectUri);
  if (outcome instanceof OAuthError) {
    back.searchParams.set('error', outcome.errorCode);
    back.searchParams.set('error_description', plainDescription(outcome.message));
  } else {
    back.searchParams.set('code', outcome.code);
  }
  if (state !== undefined) back.searchParams.set('state', state);
  back.searchParams.set('iss', issuer.href);
  return back.href;
}

/** RFC 6749 section 4.1.2.1 allows only printable ASCII without `"` and `\` in error_description. */
export const plainDescription = (text: string) =>
  text
    .replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]+/g, ' ')
    .trim()
    .slice(0, 300);

type Parameters = Record<string, unknown>;

/** The parameters that must appear at most once (RFC 6749 section 3.1) and that the SDK's handler parses. */
const SINGLE_PARAMETERS = ['response_type', 'code_challenge', 'code_challenge_method', 'scope', 'state', 'resource'] as const;

export interface AuthorizationRequestCheck {
  clients: OAuthRegisteredClientsStore;
  issuer: URL;
  /** Why `resource` (RFC 8707) is refused (an InvalidTargetError), or undefined when tokens are issued for it. */
  resourceProblem: (resource: string) => OAuthError | undefined;
}

/**
 * Checks an authorization request in front of the MCP SDK's handler, which would redirect
 * its errors without `iss`, without `state` when the request did not parse, and with zod's
 * JSON as the description. A request whose client or redirect URI cannot be trusted goes on
 * to the SDK untouched: it answers 400 and never redirects there (RFC 6749 section 4.1.2.1).
 * A valid request goes on to the SDK too, which parses it the same way and calls the provider.
 */
export function authorizationRequestCheck(path: string, check: AuthorizationRequestCheck): express.Router {
  const handle = async (req: Request, res: Response, next: NextFunction) => {
    const parameters: Parameters = (req.method === 'POST' ? req.body : req.query) ?? {};
    const redirectUri = await trustedRedirectUri(check.clients, parameters);
    if (redirectUri === undefined) return next();
    const problem = requestProblem(parameters, check.resourceProblem);
    if (!problem) return next();
    const state = typeof parameters.state === 'string' ? parameters.state : undefined;
    res.set('Cache-Control', 'no-store').redirect(302, authorizationResponse(redirectUri, check.issuer, state, problem));
  };
  const router = express.Router();
  router.get(path, handle);
  router.post(path, express.urlencoded({ extended: false, limit: '16kb' }), handle);
  return router;
}

/** The redirect URI the SDK's handler would send errors to, or undefined where it answers 400 itself. */
async function trustedRedirectUri(clients: OAuthRegisteredClientsStore, parameters: Parameters): Promise<string | undefined> {
  const { client_id: clientId, redirect_uri: requested } = parameters;
  if (typeof clientId !== 'string') return undefined;
  const client = await clients.getClient(clientId);
  if (!client) return undefined;
  if (requested === undefined) return client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined;
  if (typeof requested !== 'string' || !URL.canParse(requested)) return undefined;
  return client.redirect_uris.some((registered) => redirectUriMatches(requested, registered)) ? requested : undefined;
}

/** What is wrong with the rest of the request, said so that its developer knows what to fix. */
function requestProblem(parameters: Parameters, resourceProblem: AuthorizationRequestCheck['resourceProblem']): OAuthError | undefined {
  const repeated = SINGLE_PARAMETERS.find((name) => parameters[name] !== undefined && typeof parameters[name] !== 'string');
  if (repeated) return new InvalidRequestError(`${repeated} must be sent once`);
  const { response_type: responseType, code_challenge: challenge, code_challenge_method: method, resource, scope } = parameters;
  if (responseType === undefined) return new InvalidRequestError('response_type=code is required');
  if (responseType !== 'code') return new UnsupportedResponseTypeError('Only response_type=code is supported');
  if (!challenge || method !== 'S256') return new InvalidRequestError('code_challenge with code_challenge_method=S256 is required');
  // RFC 7636 section 4.2: S256's challenge is the base64url SHA-256 of the verifier, no padding.
  if (!/^[A-Za-z0-9_-]{43}$/.test(String(challenge))) return new InvalidRequestError('code_challenge must be the base64url SHA-256 of the code_verifier without padding: 43 characters of A-Z, a-z, 0-9, - and _');
  const scopeProblem = requestedScopes(scope as string | undefined).problem;
  if (scopeProblem) return new InvalidScopeError(scopeProblem);
  return typeof resource === 'string' ? resourceProblem(resource) : undefined;
}

/** RFC 7636 section 4.1: code_verifier = 43*128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * The token request's side of PKCE, which the SDK's /token handler does not check: a verifier
 * of the wrong form (a short one can be guessed from the challenge, which travels in the
 * authorization URL) is refused before the code is looked up, even when its S256 matches.
 */
export function codeVerifierCheck(path: string): express.Router {
  const router = express.Router();
  router.post(path, express.urlencoded({ extended: false }), (req: Request, res: Response, next: NextFunction) => {
    const { grant_type: grantType, code_verifier: verifier } = (req.body ?? {}) as Parameters;
    if (grantType !== 'authorization_code' || verifier === undefined || (typeof verifier === 'string' && CODE_VERIFIER.test(verifier))) return next();
    res.status(400).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: 'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, -, ., _ and ~ (RFC 7636 section 4.1)' });
  });
  return router;
}
