import { UPSTREAM_HEADERS, UPSTREAM_PATHS, type Product } from '@redline/shared';

/** Small helpers for tests that talk to a running double over real HTTP. */

export interface CallOptions {
  apiKey?: string | undefined;
  idempotencyKey?: string | undefined;
  body?: unknown;
  /** Sent as is instead of JSON-encoding `body`. */
  rawBody?: string;
  contentType?: string;
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
}

export async function callUpstream(baseUrl: string, product: Product, options: CallOptions): Promise<CallResult> {
  const headers: Record<string, string> = { 'Content-Type': options.contentType ?? 'application/json' };
  if (options.apiKey !== undefined) headers[UPSTREAM_HEADERS.apiKey] = options.apiKey;
  if (options.idempotencyKey !== undefined) headers[UPSTREAM_HEADERS.idempotencyKey] = options.idempotencyKey;
  const response = await fetch(baseUrl + UPSTREAM_PATHS[product], {
    method: 'POST',
    headers,
    body: options.rawBody ?? JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, headers: response.headers, body };
}

export interface AccountView {
  id: string;
  balances: Partial<Record<Product, number>>;
  charged: Record<Product, number>;
  providerRuns: Record<Product, number>;
  records: number;
}

/** The double's test-mode control API (/__control). */
export function upstreamControl(baseUrl: string) {
  async function send(method: string, path: string, body?: unknown): Promise<any> {
    const response = await fetch(`${baseUrl}/__control${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`control ${method} ${path}: HTTP ${response.status} ${await response.text()}`);
    return response.json();
  }
  return {
    async account(id: string): Promise<AccountView> {
      const state = await send('GET', '/state');
      const account = state.accounts.find((candidate: AccountView) => candidate.id === id);
      if (!account) throw new Error(`no account ${id}`);
      return account;
    },
    received: () => send('GET', '/received'),
    addFaults: (faults: unknown[]) => send('POST', '/faults', faults),
    clearFaults: () => send('DELETE', '/faults'),
    advanceClock: (advanceMs: number) => send('POST', '/clock', { advanceMs }),
    setBalances: (id: string, balances: Partial<Record<Product, number>>) => send('PUT', `/accounts/${id}/balances`, balances),
    changeKeys: (id: string, change: { add?: string[]; remove?: string[] }) => send('POST', `/accounts/${id}/keys`, change),
    reset: () => send('POST', '/reset'),
  };
}

/** One product's words charged to an account and the requests for it the double received: taken before and after, the difference says what one call cost. */
export async function productTally(baseUrl: string, product: Product, accountId = 'demo'): Promise<{ charged: number; received: number }> {
  const control = upstreamControl(baseUrl);
  const [account, received] = await Promise.all([control.account(accountId), control.received()]);
  return { charged: account.charged[product], received: (received as { product: string }[]).filter((entry) => entry.product === product).length };
}
