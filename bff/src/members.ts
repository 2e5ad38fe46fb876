import { createHash, randomBytes } from 'node:crypto';
import type { Budgets, Ledger, MemberRecord } from './storage/ledger.ts';

/** Member tokens: `rl_` and 32 random bytes in base64url (256 bits). Only a hash is stored. */
export const TOKEN_PREFIX = 'rl_';
const TOKEN_SHAPE = /^rl_[A-Za-z0-9_-]{43}$/;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function looksLikeToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

export interface CreatedMember {
  member: MemberRecord;
  /** Shown once; never stored. */
  token: string;
}

export async function createMember(ledger: Ledger, name: string, budgets: Budgets = {}): Promise<CreatedMember> {
  const trimmed = name.trim();
  if (!/^[\p{L}\p{N} ._@-]{1,64}$/u.test(trimmed)) {
    throw new Error('A member name is 1 to 64 letters, digits, spaces, ".", "_", "@" or "-".');
  }
  if ((await ledger.listMembers()).some((member) => member.name === trimmed)) {
    throw new Error(`A member named "${trimmed}" already exists.`);
  }
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const id = `m_${randomBytes(6).toString('hex')}`;
  const tokenPrefix = `${token.slice(0, 7)}…`;
  await ledger.addMember({ id, name: trimmed, tokenHash: hashToken(token), tokenPrefix, budgets });
  const member = (await ledger.listMembers()).find((candidate) => candidate.id === id)!;
  return { member, token };
}

export async function authenticate(ledger: Ledger, token: string): Promise<MemberRecord | undefined> {
  if (!looksLikeToken(token)) return undefined;
  return ledger.memberByTokenHash(hashToken(token));
}
