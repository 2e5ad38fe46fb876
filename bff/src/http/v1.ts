import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BFF_PATHS,
  BffCostRequest,
  BffDetectRequest,
  BffHumanizeRequest,
  BffPlagiarismRequest,
  PRODUCTS,
  countCharacters,
  type BffCostResponse,
  type Product,
  type BffUsageResponse,
} from '@redline/shared';
import { CREDENTIALS_IN_URL, InvalidAccessToken, bearerChallenge, hasCredentialInUrl, missingScope, readBearer, scopeChallenge, type Caller } from '../auth/bearer.ts';
import { scopeFor, type Scope } from '../auth/scopes.ts';
import type { BffConfig } from '../config.ts';
import { HttpError, notFound } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { MemberAuthenticator } from '../member-cache.ts';
import { looksLikeToken } from '../members.ts';
import type { Metrics } from '../metrics.ts';
import { documentWords } from '../operations/documents.ts';
import type { OperationEngine, OperationInput } from '../operations/engine.ts';
import { heldOperation } from '../operations/held.ts';
import type { Ledger, MemberRecord } from '../storage/ledger.ts';
import { logWhenDone, type RequestRecord } from './access-log.ts';
import { answerError, sendJson } from './answer.ts';
import { allowOrigin } from './cors.ts';
import { readJsonBody } from './json-body.ts';
import { takeRequest, type RateLimiter } from './rate-limit.ts';
import { parseRequest } from './validation.ts';

/** OAuth sign-in for the API (auth/index.ts): the caller behind an access token (member and scopes), and where to get one. */
export interface ApiOAuth {
  apiCaller(req: IncomingMessage, token: string): Promise<Caller | undefined>;
  apiResourceMetadataUrl(req: IncomingMessage): URL | undefined;
}

export interface V1Deps {
  config: BffConfig;
  ledger: Ledger;
  engine: OperationEngine;
  metrics: Metrics;
  logger: Logger;
  rateLimiter: RateLimiter;
  members: MemberAuthenticator;
  oauth: ApiOAuth;
}

interface Route {
  path: string;
  /** What an OAuth grant must allow to use the route (auth/scopes.ts); none for the member's own figures. */
  scope?: Scope;
  /** POST routes get the request's parsed JSON body; GET routes none. */
  handle(member: MemberRecord, body: unknown): Promise<unknown> | unknown;
}

/** The paths answered by the handler below rather than Express. */
export const API_PREFIX = '/v1/';

/**
 * The path of a request target: query and fragment aside, and the scheme and host of an
 * absolute-form target (`GET http://host/v1/usage`, RFC 9112 section 3.2.2) too.
 */
export function requestPath(target: string): string {
  let path = target;
  if (!path.startsWith('/')) {
    try {
      path = new URL(path).pathname;
    } catch {
      return '';
    }
  }
  const end = path.search(/[?#]/);
  return end === -1 ? path : path.slice(0, end);
}

/**
 * The /v1 API on plain node:http: the extension's and scripts' calls, a few per second per
 * writer but thousands per second for a team. Each request pays only for what it needs (CORS,
 * the member, the rate limit, one JSON parse, one schema check), not for Express's per-request
 * setup and middleware walk, which cost about a sixth of the BFF's CPU per request.
 */
export function createV1Handler({ config, ledger, engine, metrics, logger, rateLimiter, members, oauth }: V1Deps): (req: IncomingMessage, res: ServerResponse, path: string) => void {
  const allowedOrigins = new Set(config.allowedOrigins);
  const max = config.maxDocumentCharacters;
  const routes = new Map<string, Route>();
  const post = (path: string, handle: Route['handle']) => routes.set(`POST ${path}`, { path, handle });
  const get = (path: string, handle: Route['handle']) => routes.set(`GET ${path}`, { path, handle });
  /** The methods a path answers, for an OPTIONS request that is not a browser's preflight. */
  const methodsOf = (path: string) => [...(routes.has(`GET ${path}`) ? ['GET', 'HEAD'] : []), ...(routes.has(`POST ${path}`) ? ['POST'] : [])];
  const operation = <P extends Product>(path: string, product: P, toInput: (body: unknown) => Extract<OperationInput, { product: P }>) =>
    routes.set(`POST ${path}`, { path, scope: scopeFor(product), handle: (member, body) => engine.run(member, toInput(body)) });

  operation(BFF_PATHS.detector, 'detector', (body) => ({ product: 'detector', ...parseRequest(BffDetectRequest, body, max) }));
  operation(BFF_PATHS.humanizer, 'humanizer', (body) => ({ product: 'humanizer', ...parseRequest(BffHumanizeRequest, body, max) }));
  operation(BFF_PATHS.plagiarism, 'plagiarism', (body) => ({ product: 'plagiarism', ...parseRequest(BffPlagiarismRequest, body, max) }));
  post(BFF_PATHS.cost, (_member, body) => {
    const { text } = parseRequest(BffCostRequest, body, max);
    const { words, parts } = documentWords(text);
    return { words, characters: countCharacters(text), parts } satisfies BffCostResponse;
  });
  get(BFF_PATHS.usage, async (member) => {
    const [charged, counted, held] = await Promise.all([ledger.wordsCharged(member.id), ledger.budgetUsage(member.id), ledger.heldOperations(member.id)]);
    const products = Object.fromEntries(
      PRODUCTS.map((product) => {
        const budget = member.budgets[product];
        const used = charged[product];
        // Words held by operations still running count against the budget too.
        return [product, { wordsCharged: used, ...(budget === undefined ? {} : { budget, remaining: Math.max(0, budget - counted[product]) }) }];
      }),
    ) as BffUsageResponse['products'];
    const heldOperations = held.map(heldOperation);
    return {
      member: { id: member.id, name: member.name },
      mode: config.upstream ? 'upstream' : 'offline',
      products,
      ...(heldOperations.length > 0 ? { heldOperations } : {}),
    } satisfies BffUsageResponse;
  });

  /** A member token, or an OAuth access token bound to this API (the extension's sign-in). */
  const authenticate = async (req: IncomingMessage, res: ServerResponse): Promise<Caller> => {
    const { token, problem } = readBearer(req.headers.authorization);
    let caller: Caller | undefined;
    let refusal =
      problem ?? (token ? 'This member token is unknown or revoked. Ask your administrator for a new one.' : 'Sign in on the extension\'s options page, or send your member token as "Authorization: Bearer rl_...".');
    if (token !== undefined && !problem) {
      if (looksLikeToken(token)) {
        const member = await members.authenticate(token);
        caller = member && { member, via: 'member_token' };
      } else {
        try {
          caller = await oauth.apiCaller(req, token);
        } catch (error) {
          if (!(error instanceof InvalidAccessToken)) throw error;
          refusal = error.message;
        }
      }
    }
    if (caller) return caller;
    res.setHeader('WWW-Authenticate', bearerChallenge(token !== undefined, refusal, oauth.apiResourceMetadataUrl(req)));
    throw HttpError.of(401, 'unauthorized', refusal);
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, requested: string, record: RequestRecord) => {
    const path = routePath(requested);
    const route = routes.get(`${req.method === 'HEAD' ? 'GET' : req.method} ${path}`);
    record.route = route?.path;
    if (!allowOrigin(allowedOrigins, req, res)) return;
    if (hasCredentialInUrl(req.url)) throw HttpError.of(400, 'invalid_request', CREDENTIALS_IN_URL);
    const caller = await authenticate(req, res);
    const { member } = caller;
    record.member = member.id;
    await takeRequest(rateLimiter, member);
    const allowed = req.method === 'OPTIONS' ? methodsOf(path) : [];
    if (allowed.length > 0) {
      res.setHeader('Allow', allowed.join(', '));
      res.statusCode = 204;
      return void res.end();
    }
    if (!route) {
      const methods = methodsOf(path);
      if (methods.length === 0) throw notFound();
      res.setHeader('Allow', methods.join(', '));
      throw HttpError.of(405, 'method_not_allowed', `${path} takes ${methods.join(' or ')}, not ${req.method}. The API is described at /openapi.json.`);
    }
    const refusal = route.scope && missingScope(caller, route.scope);
    if (refusal) {
      res.setHeader('WWW-Authenticate', scopeChallenge(caller.scopes!, route.scope!, refusal, oauth.apiResourceMetadataUrl(req)));
      throw HttpError.of(403, 'insufficient_scope', refusal);
    }
    if (req.method !== 'POST') return sendJson(res, 200, await route.handle(member, undefined));
    const body = await readJsonBody(req, config.maxBodyBytes);
    // Asked again once the body is in: a revocation that reached this instance while a slow upload
    // (a large document) arrived stops the request before anything is sent or charged.
    sendJson(res, 200, await route.handle((await authenticate(req, res)).member, body));
  };

  return (req, res, path) => {
    const record: RequestRecord = {};
    logWhenDone(req, res, { metrics, logger }, () => record);
    answer(req, res, path, record).catch((error: unknown) => {
      record.code = answerError(error, req, res, logger);
    });
  };
}

/** The path as routed: one trailing slash and letter case aside, as Express routed. */
function routePath(path: string): string {
  return (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();
}
