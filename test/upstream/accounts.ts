import { z } from 'zod';
import { PRODUCTS, type Product } from '@redline/shared';

/**
 * An upstream account: its API keys (several, so key rotation can be exercised; all of an
 * account's keys share its balances and idempotency records) and a word balance per
 * product. A product without a balance has no active subscription (HTTP 403, 1002).
 */
export const AccountConfig = z.object({
  id: z.string().min(1),
  keys: z.array(z.string().min(1)).min(1),
  balances: z.partialRecord(z.enum(PRODUCTS), z.number().int().nonnegative()),
});
export type AccountConfig = z.infer<typeof AccountConfig>;

export const AccountsConfig = z.array(AccountConfig).min(1);

/** The documented demo accounts (README: "Running the upstream double alone"). */
export const DEMO_ACCOUNTS: AccountConfig[] = [
  {
    id: 'demo',
    keys: ['demo-key-primary', 'demo-key-secondary'],
    balances: { detector: 1_000_000, humanizer: 1_000_000, plagiarism: 1_000_000 },
  },
  { id: 'detector-only', keys: ['demo-key-detector-only'], balances: { detector: 100_000 } },
  { id: 'low-balance', keys: ['demo-key-low-balance'], balances: { detector: 50, humanizer: 50, plagiarism: 50 } },
];

export type Balances = Partial<Record<Product, number>>;
