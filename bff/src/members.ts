import { createHash, randomBytes } from 'node:crypto';
import type { Budgets, Ledger, MemberRecord, NewMember } from './storage/ledger.ts';
import { SESSION_IDLE_MS } from './console/sessions.ts';
import { personNameAsRead } from './names-as-read.ts';

/** Member tokens: `rl_` and 32 random bytes in base64url (256 bits). Only a hash is stored. */
export const TOKEN_PREFIX = 'rl_';

/** The largest word budget a member can be given (the console and the CLI alike): far above any plan, within every ledger's integers. */
export const MAX_BUDGET_WORDS = 1_000_000_000;
const TOKEN_SHAPE = /^rl_[A-Za-z0-9_-]{43}$/;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function looksLikeToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/** Why a bearer value that starts like a member token is not one (cut short when copied, most likely); undefined otherwise. */
export function memberTokenProblem(value: string): string | undefined {
  if (!value.startsWith('rl_') || TOKEN_SHAPE.test(value)) return undefined;
  return 'This is not a whole member token: a member token is rl_ and 43 more letters, digits, - or _. Copy the whole token, or ask your administrator for a new one.';
}

const MEMBER_ID_SHAPE = /^m_[0-9a-f]{12}$/;

export interface CreatedMember {
  member: MemberRecord;
  /** Shown once; never stored. */
  token: string;
}

function newMember(name: string, budgets: Budgets): { member: NewMember; token: string } {
  const trimmed = name.trim();
  if (!/^[\p{L}\p{N} ._@-]{1,64}$/u.test(trimmed)) {
    throw new Error('A member name is 1 to 64 letters, digits, spaces, ".", "_", "@" or "-".');
  }
  // The members CLI takes an id or a name: a name shaped like an id would name two members.
  if (MEMBER_ID_SHAPE.test(trimmed)) throw new Error('A member name cannot look like a member id (m_ and 12 hexadecimal digits).');
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const id = `m_${randomBytes(6).toString('hex')}`;
  return { member: { id, name: trimmed, tokenHash: hashToken(token), tokenPrefix: `${token.slice(0, 7)}…`, budgets }, token };
}

async function created(ledger: Ledger, id: string, token: string): Promise<CreatedMember> {
  return { member: (await ledger.listMembers()).find((candidate) => candidate.id === id)!, token };
}

/** Refuses a name that reads as a member's, a revoked member's included. */
function refuseNameTaken(name: string, members: readonly MemberRecord[]): void {
  const taken = members.find((existing) => personNameAsRead(existing.name) === personNameAsRead(name));
  if (taken?.revokedAt) {
    throw new Error(`A revoked member is named "${taken.name}": a name stays taken after revocation, so the audit log and usage keep meaning one person. Choose another name.`);
  }
  if (taken) {
    const same = taken.name === name ? '' : ' (names that differ only in case, letter width or look-alike letters read as one)';
    throw new Error(`A member named "${taken.name}" already exists${same}.`);
  }
}

export async function createMember(ledger: Ledger, name: string, budgets: Budgets = {}): Promise<CreatedMember> {
  const { member, token } = newMember(name, budgets);
  // Checked by the ledger as it adds the member: two administrators adding 'bob' and 'bоb' at once both got them.
  await ledger.addMember(member, (members) => refuseNameTaken(member.name, members));
  return created(ledger, member.id, token);
}

/**
 * Creates the first member, an administrator (the console), unless any member exists (or another
 * instance just created it): one statement. `keep` is handed the token before the member exists,
 * so no failure after the insert can lose it; false when another member was there first.
 */
export async function createFirstMember(ledger: Ledger, name: string, keep: (token: string) => void): Promise<boolean> {
  const { member, token } = newMember(name, {});
  keep(token);
  return ledger.addFirstMember(member);
}

/**
 * Gives an active member a new token; the old one stops working at once, on every instance
 * (announced like a revocation). Undefined when there is no such active member.
 */
export async function rotateMemberToken(ledger: Ledger, memberId: string): Promise<string | undefined> {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const rotated = await (await ledger.consoleStore()).rotateToken(memberId, hashToken(token), `${token.slice(0, 7)}…`);
  return rotated ? token : undefined;
}

/**
 * Revokes a member's token. A PostgreSQL ledger announces it to every instance in the same
 * statement (pg_notify, delivered on commit), whose member caches forget what they held
 * (member-cache.ts).
 */
export async function revokeMember(ledger: Ledger, memberId: string): Promise<boolean> {
  return ledger.revokeMember(memberId);
}

/**
 * Ends what a member's token opened, after a revocation or a rotation (a token is rotated
 * because it may have leaked): their MCP and extension sign-ins and their console sessions,
 * except `keepSession` (the administrator's own, when rotating their own token).
 */
export async function endMemberAccess(ledger: Ledger, memberId: string, now: number, keepSession?: string): Promise<{ grants: number; sessions: number }> {
  const grants = await (await ledger.oauthStore()).revokeMemberGrants(memberId, now);
  // Counted: the sessions still open. Expired ones are revoked too, but this did not end them.
  const sessions = await (await ledger.consoleStore()).revokeMemberSessions(memberId, now, keepSession, now - SESSION_IDLE_MS);
  return { grants, sessions };
}

/** The active member holding this token, straight from the ledger (member-cache.ts caches it where that pays). */
export async function authenticate(ledger: Ledger, token: string): Promise<MemberRecord | undefined> {
  if (!looksLikeToken(token)) return undefined;
  return ledger.memberByTokenHash(hashToken(token));
}
