import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { z } from 'zod';
import { PRODUCTS } from '@redline/shared';
import type { BffConfig } from '../config.ts';
import { describeError, type Logger } from '../logging.ts';
import { MAX_BUDGET_WORDS, authenticate, createMember, endMemberAccess, revokeMember, rotateMemberToken } from '../members.ts';
import { ROLES, type Budgets, type Ledger, type MemberRecord } from '../storage/ledger.ts';
import { ConsoleError, consoleErrorHandler } from './errors.ts';
import { createExtensionLink, createOwnExtensionLink } from '../auth/extension-link.ts';
import { createSignInLink } from './links.ts';
import {
  checkCsrfToken,
  checkOrigin,
  clearSessionCookie,
  consoleOrigin,
  csrfTokenOf,
  currentSession,
  hashSecret,
  openSession,
  SESSION_IDLE_MS,
  setSessionCookie,
  startSession,
  type Clock,
  type ConsoleSession,
} from './sessions.ts';
import { signInRoutes } from './sign-ins.ts';
import { upstreamKeyRoutes } from './upstream-keys.ts';
import { usageCsv, usageReport } from './usage.ts';
import type { UpstreamKeyring } from '../upstream/keyring.ts';
import type { SecretBox } from '../upstream/secret-box.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import { refuseNonUtf8 } from '../http/json-body.ts';

export interface ConsoleDeps {
  config: BffConfig;
  ledger: Ledger;
  logger: Logger;
  clock: Clock;
  /** The built page (npm run build:console). */
  staticDir?: string;
  /** Upstream mode: the keys in use. */
  keyring?: UpstreamKeyring | undefined;
  /** Encrypts the upstream keys the console stores; absent without BFF_SECRET_KEY. */
  secretBox?: SecretBox | undefined;
  /** Counts refused sign-ins per client address (shared by the instances when Redis is set): see SIGN_IN_REFUSALS. */
  signInRefusals: RateLimiter;
}

// bff/dist/console, from the sources (bff/src/console) or from the bundle (bff/dist/server).
const DEFAULT_STATIC_DIR = fileURLToPath(new URL(import.meta.url.includes('/dist/server/') ? '../console/' : '../../dist/console/', import.meta.url));

const Budget = z.number().int().min(0).max(MAX_BUDGET_WORDS).nullable().optional();
const BudgetsBody = z.object({ detector: Budget, humanizer: Budget, plagiarism: Budget }).strict();
/** A change of budgets: a number sets a product's budget, null clears it, a product left out keeps its own. */
const BudgetChangeBody = BudgetsBody.refine((body) => PRODUCTS.some((product) => body[product] !== undefined), {
  message: 'name at least one product (detector, humanizer, plagiarism): a number of words sets its budget, null removes it',
});
const NewMemberBody = z.object({ name: z.string(), role: z.enum(ROLES).default('member'), budgets: BudgetsBody.default({}) }).strict();
const RoleBody = z.object({ role: z.enum(ROLES) }).strict();
const RateLimitBody = z.object({ requests: z.number().int().min(1).max(1_000_000).nullable() }).strict();
const TokenBody = z.object({ token: z.string().max(200) }).strict();
const LinkBody = z.object({ code: z.string().max(200) }).strict();

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ConsoleError(400, 'invalid_request', `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return result.data;
}

const toBudgets = (body: z.infer<typeof BudgetsBody>): Budgets =>
  Object.fromEntries(PRODUCTS.flatMap((product) => (typeof body[product] === 'number' ? [[product, body[product]]] : []))) as Budgets;

/** A write that carries a body must say it is JSON: another body would not be read, and the write would go through as if empty. */
function refuseNonJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is('application/json')) throw new ConsoleError(415, 'unsupported_media_type', 'Send the request body as JSON, with "Content-Type: application/json".');
  next();
}

/** What the routes taking an id answer when there is no such item, by path. */
const NO_SUCH_ITEM: [string, string][] = [
  ['/members/', 'There is no active member with this id.'],
  ['/sessions/', 'There is no open session with this id.'],
  ['/upstream-keys/', 'There is no upstream key with this id.'],
];

/** Refused console sign-ins per client address and window (successful ones are not counted, nor ever refused). */
export const SIGN_IN_REFUSALS = { windowMinutes: 15, perAddress: 10 };
/** A member's own extension sign-in links (an administrator's for members are not limited). */
const OWN_EXTENSION_LINKS_PER_HOUR = 10;

const publicMember = (member: MemberRecord) => ({ id: member.id, name: member.name, role: member.role });

type Locals = { console?: ConsoleSession };
const sessionOf = (res: Response) => (res.locals as Locals).console!;

/**
 * The team console at /console: a static Preact page and its JSON API. It authenticates with a
 * session cookie (never a bearer token), refuses cross-site writes, and works through the
 * ledger's interfaces and members.ts; it calls the upstream only to test a key (upstream-keys.ts).
 */
export function consoleRouter({ config, ledger, logger, clock, staticDir = DEFAULT_STATIC_DIR, keyring, secretBox, signInRefusals }: ConsoleDeps): express.Router {
  const router = express.Router();
  const store = () => ledger.consoleStore();
  const publicUrl = config.publicUrl;

  const auditEntry = (req: Request, actor: MemberRecord | null, action: string, target: string | null, detail: Record<string, unknown> = {}) => ({
    at: clock.now(),
    actorId: actor?.id ?? null,
    actorName: actor?.name ?? null,
    action,
    target,
    detail,
    address: req.ip ?? '',
  });
  const audit = async (req: Request, actor: MemberRecord | null, action: string, target: string | null, detail: Record<string, unknown> = {}) =>
    (await store()).audit(auditEntry(req, actor, action, target, detail));

  router.use('/console', (_req, res, next) => {
    res.set({
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
    next();
  });

  /** Words charged per product, with the budget and what is left of it (charged and still-reserved words count). */
  const productUsage = async (member: MemberRecord) => {
    const [charged, counted] = await Promise.all([ledger.wordsCharged(member.id), ledger.budgetUsage(member.id)]);
    return Object.fromEntries(
      PRODUCTS.map((product) => {
        const budget = member.budgets[product];
        return [product, { wordsCharged: charged[product], ...(budget === undefined ? {} : { budget, remaining: Math.max(0, budget - counted[product]) }) }];
      }),
    );
  };

  const api = express.Router();
  api.use(refuseNonJsonBody, express.json({ limit: '16kb', verify: refuseNonUtf8 }));
  // Signing in needs no session and every refusal is an audit entry: without a limit a stranger
  // could write entries without end and push the administrators' own out of the Audit log page.
  // Only refusals are limited: a whole token or an unused link still signs in from a limited
  // address, so a stranger behind the same NAT or proxy cannot lock the team out.
  const refuseSignIn = async (req: Request, method: 'token' | 'link', message: string): Promise<ConsoleError> => {
    // An IPv6 client counts by its /56 (express-rate-limit's rule, as before): one host holds a
    // /64 and could take a new address for every try.
    const waitSeconds = await signInRefusals.take(ipKeyGenerator(req.ip ?? ''));
    if (waitSeconds > 0) {
      const minutes = Math.ceil(waitSeconds / 60);
      return new ConsoleError(429, 'too_many_requests', `Too many refused sign-ins from this address. Try again in ${minutes === 1 ? 'a minute' : `${minutes} minutes`}; a whole member token or an unused sign-in link signs in meanwhile.`, waitSeconds);
    }
    await audit(req, null, 'sign_in_refused', null, { method });
    return new ConsoleError(401, 'invalid_sign_in', message);
  };

  // Signing in: no session yet, so only the origin is checked (no logging in a victim as someone else).
  api.post('/sign-in', async (req, res) => {
    checkOrigin(req, publicUrl);
    const { token } = parse(TokenBody, req.body);
    const member = await authenticate(ledger, token.trim());
    if (!member) throw await refuseSignIn(req, 'token', 'This token is unknown or revoked. Paste the whole token (it starts with rl_).');
    const { csrfToken } = await startSession(await store(), member, req, res, clock, publicUrl);
    await audit(req, member, 'sign_in', member.id, { method: 'token' });
    res.json({ member: publicMember(member), csrfToken });
  });

  api.post('/sign-in/link', async (req, res) => {
    checkOrigin(req, publicUrl);
    const { code } = parse(LinkBody, req.body);
    const consoleStore = await store();
    const refused = () => refuseSignIn(req, 'link', 'This sign-in link was already used, has expired or is unknown. Ask an administrator for a new one.');
    const codeHash = hashSecret(code);
    const memberId = await consoleStore.linkMember(codeHash, clock.now(), 'console');
    const member = memberId && (await consoleStore.member(memberId));
    if (!member || member.revokedAt) throw await refused();
    // The session first, the link used up last (with its audit entry): a failure in between leaves the link working.
    const { session, secret, csrfToken } = await openSession(consoleStore, member, req, clock);
    let used;
    try {
      used = await consoleStore.consumeLink(codeHash, clock.now(), 'console', auditEntry(req, member, 'sign_in', member.id, { method: 'link' }));
    } finally {
      if (!used) await consoleStore.revokeSession(session.id, clock.now()).catch(() => {});
    }
    if (!used) throw await refused();
    setSessionCookie(req, res, secret, publicUrl);
    res.json({ member: publicMember(member), csrfToken });
  });

  // Everything below needs a session; writes need the CSRF token too.
  api.use(async (req, res, next) => {
    const session = await currentSession(await store(), req, clock);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      checkOrigin(req, publicUrl);
      checkCsrfToken(req, session.secret);
    }
    (res.locals as Locals).console = session;
    next();
  });

  api.get('/session', (_req, res) => {
    const { session, member, secret } = sessionOf(res);
    res.json({ member: publicMember(member), csrfToken: csrfTokenOf(secret), expiresAt: session.expiresAt, idleMinutes: SESSION_IDLE_MS / 60_000 });
  });

  // A member's own words and budgets (every role).
  api.get('/me/usage', async (_req, res) => {
    const { member } = sessionOf(res);
    res.json({ products: await productUsage(member) });
  });

  // A one-time sign-in link for the member's own browser extension (every role). Each is an
  // audit entry: limited per member, or any member could push the administrators' entries out.
  // The ledger counts the links, so the instances share the limit (with or without Redis).
  api.post('/me/extension-link', async (req, res) => {
    const { member } = sessionOf(res);
    const made = await createOwnExtensionLink(await store(), member.id, consoleOrigin(req, publicUrl), clock.now(), { links: OWN_EXTENSION_LINKS_PER_HOUR, windowMs: 3600_000 });
    if ('waitMs' in made) {
      const message = `You made ${OWN_EXTENSION_LINKS_PER_HOUR} extension sign-in links within the hour. Use one of them (each works once, for 24 hours), or wait an hour.`;
      throw new ConsoleError(429, 'too_many_requests', message, Math.ceil(made.waitMs / 1000));
    }
    await audit(req, member, 'extension_link_created', member.id, { name: member.name, expiresAt: made.link.expiresAt });
    res.status(201).json(made.link);
  });

  api.post('/sign-out', async (req, res) => {
    const { session, member } = sessionOf(res);
    await (await store()).revokeSession(session.id, clock.now());
    clearSessionCookie(req, res, publicUrl);
    await audit(req, member, 'sign_out', session.id);
    res.json({ signedOut: true });
  });

  // Administration: admins only.
  const admin = express.Router();
  admin.use((_req, res, next) => {
    if (sessionOf(res).member.role !== 'admin') throw new ConsoleError(403, 'forbidden', 'Only administrators can do this. Ask an administrator to make you one.');
    next();
  });

  // Every id the console makes is short printable ASCII (m_…, s_…, uk_…, grant UUIDs). Another is no
  // such item, refused before the ledger sees it: PostgreSQL refuses a NUL in a text parameter,
  // and that error was answered as a fault of the console (500).
  for (const param of ['id', 'grantId']) {
    admin.param(param, (req, _res, next, value: string) => {
      if (/^[\x21-\x7e]{1,200}$/.test(value)) return next();
      const what = param === 'grantId' ? 'This member has no active sign-in with this id.' : NO_SUCH_ITEM.find(([prefix]) => req.path.startsWith(prefix))?.[1];
      next(new ConsoleError(404, 'not_found', what ?? 'No such console endpoint.'));
    });
  }

  const actor = (res: Response) => sessionOf(res).member;
  const activeMember = async (id: string) => {
    const member = await (await store()).member(id);
    if (!member || member.revokedAt) throw new ConsoleError(404, 'not_found', 'There is no active member with this id.');
    return member;
  };

  admin.get('/members', async (_req, res) => {
    const [members, lastUsed] = await Promise.all([ledger.listMembers(), (await store()).lastUsed()]);
    const rows = await Promise.all(
      members.map(async (member) => ({
        ...publicMember(member),
        tokenPrefix: member.tokenPrefix,
        rateLimit: member.rateLimit,
        createdAt: member.createdAt,
        revokedAt: member.revokedAt,
        lastUsedAt: lastUsed.get(member.id) ?? null,
        products: await productUsage(member),
      })),
    );
    res.json({ members: rows, defaultRateLimit: config.memberRateLimit.requests, rateWindowSeconds: config.memberRateLimit.windowMs / 1000 });
  });

  admin.post('/members', async (req, res) => {
    const body = parse(NewMemberBody, req.body);
    const created = await createMember(ledger, body.name, toBudgets(body.budgets)).catch((error: Error) => {
      throw new ConsoleError(400, 'invalid_request', error.message);
    });
    if (body.role !== 'member') await (await store()).setRole(created.member.id, body.role);
    await audit(req, actor(res), 'member_added', created.member.id, { name: created.member.name, role: body.role, budgets: toBudgets(body.budgets) });
    res.status(201).json({ member: { ...publicMember(created.member), role: body.role }, token: created.token });
  });

  admin.post('/members/:id/budgets', async (req, res) => {
    const change = parse(BudgetChangeBody, req.body);
    // One statement: two administrators changing different products at once both take effect.
    // Announced to every instance's member cache by the ledger's statement itself.
    const budgets = await (await store()).changeBudgets(req.params.id!, change);
    if (!budgets) throw new ConsoleError(404, 'not_found', 'There is no active member with this id.');
    await audit(req, actor(res), 'budgets_changed', req.params.id!, { change, budgets });
    res.json({ budgets });
  });

  admin.post('/members/:id/rate-limit', async (req, res) => {
    const { requests } = parse(RateLimitBody, req.body);
    await activeMember(req.params.id!);
    // Members are cached per instance with their limit: announced like a budget change, by the ledger's statement.
    if (!(await (await store()).setRateLimit(req.params.id!, requests))) throw new ConsoleError(404, 'not_found', 'There is no active member with this id.');
    await audit(req, actor(res), 'rate_limit_changed', req.params.id!, { requests, windowSeconds: config.memberRateLimit.windowMs / 1000 });
    res.json({ requests });
  });

  /** Why a role change or revocation of this member did not happen: gone, or the last administrator. */
  const refusal = async (id: string, doing: string) => {
    const member = await activeMember(id);
    return member.role === 'admin'
      ? new ConsoleError(409, 'conflict', `${member.name} is the team's last administrator: ${doing} would leave nobody who can use the console. Make another member an administrator first.`)
      : new ConsoleError(409, 'conflict', `${member.name} changed meanwhile. Reload the page and try again.`);
  };

  admin.post('/members/:id/role', async (req, res) => {
    const { role } = parse(RoleBody, req.body);
    if (req.params.id === actor(res).id) throw new ConsoleError(400, 'invalid_request', 'You cannot change your own role; ask another administrator.');
    await activeMember(req.params.id!);
    if (!(await (await store()).setRole(req.params.id!, role))) throw await refusal(req.params.id!, 'making them a member');
    await audit(req, actor(res), 'role_changed', req.params.id!, { role });
    res.json({ role });
  });

  admin.post('/members/:id/revoke', async (req, res) => {
    if (req.params.id === actor(res).id) throw new ConsoleError(400, 'invalid_request', 'You cannot revoke yourself; ask another administrator.');
    const member = await activeMember(req.params.id!);
    // The token stops working on every instance (LISTEN/NOTIFY), then its MCP grants and console sessions.
    if (!(await revokeMember(ledger, member.id))) throw await refusal(member.id, 'revoking them');
    const { grants, sessions } = await endMemberAccess(ledger, member.id, clock.now());
    await audit(req, actor(res), 'member_revoked', member.id, { name: member.name, grants, sessions });
    res.json({ revoked: true, grants, sessions });
  });

  admin.post('/members/:id/rotate', async (req, res) => {
    const member = await activeMember(req.params.id!);
    const token = await rotateMemberToken(ledger, member.id);
    if (!token) throw new ConsoleError(404, 'not_found', 'There is no active member with this id.');
    // What the old token opened ends with it (it is rotated because it may have leaked); an
    // administrator rotating their own token keeps the session they are doing it from.
    const { grants, sessions } = await endMemberAccess(ledger, member.id, clock.now(), sessionOf(res).session.id);
    await audit(req, actor(res), 'token_rotated', member.id, { name: member.name, grants, sessions });
    res.json({ token, grants, sessions });
  });

  admin.post('/members/:id/link', async (req, res) => {
    const member = await activeMember(req.params.id!);
    const link = await createSignInLink(await store(), member.id, actor(res).id, consoleOrigin(req, publicUrl), clock.now());
    await audit(req, actor(res), 'sign_in_link_created', member.id, { name: member.name, expiresAt: link.expiresAt });
    res.status(201).json(link);
  });

  admin.post('/members/:id/extension-link', async (req, res) => {
    const member = await activeMember(req.params.id!);
    const link = await createExtensionLink(await store(), member.id, actor(res).id, consoleOrigin(req, publicUrl), clock.now());
    await audit(req, actor(res), 'extension_link_created', member.id, { name: member.name, expiresAt: link.expiresAt });
    res.status(201).json(link);
  });

  admin.get('/sessions', async (_req, res) => {
    const now = clock.now();
    const [sessions, members] = await Promise.all([(await store()).listSessions(now), ledger.listMembers()]);
    const names = new Map(members.map((member) => [member.id, member.name]));
    const current = sessionOf(res).session.id;
    res.json({
      sessions: sessions
        .filter((session) => now - session.lastSeenAt < SESSION_IDLE_MS)
        .map(({ secretHash: _secret, ...session }) => ({ ...session, memberName: names.get(session.memberId) ?? session.memberId, current: session.id === current })),
    });
  });

  admin.post('/sessions/:id/revoke', async (req, res) => {
    // An expired session is marked revoked too, but this did not end it: not said, nor audited, as ended.
    const now = clock.now();
    if (!(await (await store()).revokeSession(req.params.id!, now, now - SESSION_IDLE_MS))) {
      throw new ConsoleError(404, 'not_found', 'There is no open session with this id: it may have been signed out, revoked or expired, or the id is wrong. Reload the list of sessions.');
    }
    await audit(req, actor(res), 'session_revoked', req.params.id!);
    res.json({ revoked: true });
  });

  admin.get('/audit', async (_req, res) => {
    res.json({ entries: await (await store()).auditLog(200) });
  });

  admin.get('/usage', async (req, res) => {
    res.json(await usageReport(ledger, await store(), req.query, clock.now(), keyring?.active()?.account));
  });

  admin.get('/usage.csv', async (req, res) => {
    const report = await usageReport(ledger, await store(), req.query, clock.now(), keyring?.active()?.account);
    res.type('text/csv').set('Content-Disposition', `attachment; filename="redline-usage-${report.from}-to-${report.to}.csv"`).send(usageCsv(report));
  });

  signInRoutes(admin, {
    oauth: () => ledger.oauthStore(),
    now: () => clock.now(),
    actor,
    activeMember,
    audit: (req, who, action, target, detail) => audit(req, who, action, target, detail),
  });

  upstreamKeyRoutes(admin, {
    config,
    store,
    keyring,
    secretBox,
    now: () => clock.now(),
    actor,
    audit: (req, who, action, target, detail) => audit(req, who, action, target, detail),
    parse,
  });

  api.use(admin);
  api.use((_req, _res, next: NextFunction) => next(new ConsoleError(404, 'not_found', 'No such console endpoint.')));
  api.use(consoleErrorHandler((error) => logger.error({ error: describeError(error) }, 'console: unexpected error')));
  router.use('/console/api', api);

  // The page's relative asset URLs need the trailing slash (Express also matches /console/ here).
  router.get('/console', (req, res, next) => (req.originalUrl.split('?')[0] === '/console' ? res.redirect(301, '/console/') : next()));
  if (existsSync(staticDir)) {
    router.use('/console', express.static(staticDir, { index: 'index.html', redirect: false }));
  } else {
    router.get('/console/', (_req, res) => {
      res.status(503).type('text/plain').send('The console page is not built. Run: npm run build:console');
    });
  }
  return router;
}
