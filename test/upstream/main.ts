import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AccountsConfig, DEMO_ACCOUNTS } from './accounts.ts';
import { startUpstreamDouble } from './server.ts';

const USAGE = `Usage: npm run upstream -- [options]

Runs the upstream double: the documented text analysis service, on this machine.

Options:
  --port N             port to listen on (default 4010; env UPSTREAM_PORT)
  --host H             address to bind (default 127.0.0.1)
  --accounts FILE      JSON array of accounts: [{ "id", "keys": [...], "balances": { "detector": N, ... } }]
                       (default: the demo accounts listed in the README)
  --rate-limit N/S     at most N requests per account every S seconds (default: unlimited)
  --test-mode          enable /__control (faults, clock, charges); for tests and development only
  --help               this text`;

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.UPSTREAM_PORT ?? '4010' },
    host: { type: 'string', default: '127.0.0.1' },
    accounts: { type: 'string' },
    'rate-limit': { type: 'string' },
    'test-mode': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  console.error(`upstream double: ${message}\n\n${USAGE}`);
  process.exit(2);
}

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a whole number from 0 to 65535, not "${values.port}"`);

let accounts = DEMO_ACCOUNTS;
if (values.accounts) {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(values.accounts, 'utf8'));
  } catch (error) {
    fail(`cannot read ${values.accounts}: ${(error as Error).message}`);
  }
  const parsed = AccountsConfig.safeParse(json);
  if (!parsed.success) fail(`${values.accounts} is not a valid accounts file: ${parsed.error.issues[0]!.path.join('.')} ${parsed.error.issues[0]!.message}`);
  accounts = parsed.data;
}

let rateLimit: { requests: number; windowMs: number } | undefined;
if (values['rate-limit']) {
  const match = /^(\d+)\/(\d+)$/.exec(values['rate-limit']);
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) fail(`--rate-limit must look like 60/60 (requests/seconds), not "${values['rate-limit']}"`);
  rateLimit = { requests: Number(match[1]), windowMs: Number(match[2]) * 1000 };
}

const double = await startUpstreamDouble({ port, host: values.host, accounts, rateLimit, testMode: values['test-mode'] });
console.log(`Upstream double listening on ${double.url}${values['test-mode'] ? ' (test mode: /__control enabled)' : ''}`);
console.log(`Accounts: ${accounts.map((account) => `${account.id} [${Object.keys(account.balances).join(', ') || 'no products'}]`).join('; ')}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void double.close().then(() => process.exit(0)));
}
