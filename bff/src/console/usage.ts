import { PRODUCTS, type Product } from '@redline/shared';
import type { ConsoleStore, UpstreamQuota } from '../storage/console-store.ts';
import type { Ledger } from '../storage/ledger.ts';
import { heldOperation } from '../operations/held.ts';
import { ConsoleError } from './errors.ts';

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar day written YYYY-MM-DD (not 2026-02-30 or 2026-13-01, which Date.parse rolls over or refuses). */
const isDay = (value: string): boolean => DAY.test(value) && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString().slice(0, 10) === value;

const PERIOD_FORMAT = 'Give the period as from=YYYY-MM-DD and to=YYYY-MM-DD, both real calendar days.';

export interface UsageReport {
  from: string;
  to: string;
  /** Words per UTC day and product, all members together. */
  days: { day: string; words: Record<Product, number> }[];
  /** Words per member and product over the period, with what is left of each budget today. */
  members: { id: string; name: string; words: Record<Product, number>; remaining: Partial<Record<Product, number>> }[];
  rows: { day: string; memberId: string; memberName: string; product: Product; words: number }[];
  /**
   * The last words-remaining figures the upstream reported (in quota refusals), per product, and
   * when: the active key's account's only (another account's figures would mislead).
   */
  upstreamQuotas: Omit<UpstreamQuota, 'account'>[];
  /** Operations held pending (ledger.ts, HeldOperation), every member's: each needs the upstream key or address fixed. */
  heldOperations: (ReturnType<typeof heldOperation> & { memberId: string; memberName: string })[];
}

const zero = () => Object.fromEntries(PRODUCTS.map((product) => [product, 0])) as Record<Product, number>;

function period(query: Record<string, unknown>, now: number): { from: string; to: string } {
  const to = typeof query.to === 'string' && query.to ? query.to : new Date(now).toISOString().slice(0, 10);
  if (!isDay(to)) throw new ConsoleError(400, 'invalid_request', PERIOD_FORMAT);
  const from = typeof query.from === 'string' && query.from ? query.from : new Date(Date.parse(to) - 29 * DAY_MS).toISOString().slice(0, 10);
  if (!isDay(from)) throw new ConsoleError(400, 'invalid_request', PERIOD_FORMAT);
  if (from > to) throw new ConsoleError(400, 'invalid_request', 'The period starts after it ends: swap from and to.');
  if (Date.parse(to) - Date.parse(from) > 366 * DAY_MS) throw new ConsoleError(400, 'invalid_request', 'Choose a period of at most a year.');
  return { from, to };
}

/** Words charged per day, product and member in a period (both ends included, UTC days). */
export async function usageReport(ledger: Ledger, store: ConsoleStore, query: Record<string, unknown>, now: number, activeAccount?: string): Promise<UsageReport> {
  const { from, to } = period(query, now);
  const [usage, members, quotas, held] = await Promise.all([
    store.usage(new Date(`${from}T00:00:00Z`), new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS)),
    ledger.listMembers(),
    store.quotas(),
    ledger.heldOperations(),
  ]);
  const names = new Map(members.map((member) => [member.id, member.name]));
  const days = new Map<string, Record<Product, number>>();
  for (let day = Date.parse(from); day <= Date.parse(to); day += DAY_MS) days.set(new Date(day).toISOString().slice(0, 10), zero());
  const perMember = new Map<string, Record<Product, number>>();
  for (const row of usage) {
    days.get(row.day)![row.product] += row.words;
    const totals = perMember.get(row.memberId) ?? zero();
    totals[row.product] += row.words;
    perMember.set(row.memberId, totals);
  }
  const memberRows = await Promise.all(
    members
      .filter((member) => !member.revokedAt || perMember.has(member.id))
      .map(async (member) => {
        const counted = await ledger.budgetUsage(member.id);
        const remaining = Object.fromEntries(
          PRODUCTS.flatMap((product) => (member.budgets[product] === undefined ? [] : [[product, Math.max(0, member.budgets[product]! - counted[product])]])),
        );
        return { id: member.id, name: member.name, words: perMember.get(member.id) ?? zero(), remaining };
      }),
  );
  return {
    from,
    to,
    days: [...days].map(([day, words]) => ({ day, words })),
    members: memberRows,
    rows: usage.map((row) => ({ ...row, memberName: names.get(row.memberId) ?? row.memberId })),
    upstreamQuotas: quotas.filter((quota) => quota.account === activeAccount).map(({ account: _account, ...quota }) => quota),
    heldOperations: held.map((record) => ({ ...heldOperation(record), memberId: record.memberId, memberName: names.get(record.memberId) ?? record.memberId })),
  };
}

/** A spreadsheet cell: quoted, and never read as a formula. */
const cell = (value: string | number) => {
  const text = String(value);
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export function usageCsv(report: UsageReport): string {
  const lines = [['day', 'member_id', 'member', 'product', 'words'].join(',')];
  for (const row of report.rows) lines.push([row.day, row.memberId, row.memberName, row.product, row.words].map(cell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
