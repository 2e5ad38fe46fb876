import { parseArgs } from 'node:util';
import { PRODUCTS, type Product } from '@redline/shared';
import { ConfigError, loadConfig } from './config.ts';
import { createMember } from './members.ts';
import type { Budgets } from './storage/ledger.ts';
import { openLedger } from './storage/open.ts';

const USAGE = `Usage: npm run members -- <command>

  add NAME [--budget detector=N] [--budget humanizer=N] [--budget plagiarism=N]
      Creates a member and prints its token once. Budgets cap the member's words per product.
  list
      Lists members (id, name, token prefix, budgets, created, revoked).
  revoke ID_OR_NAME
      Revokes a member's token at once.

The ledger is BFF_DATA_DIR/bff.sqlite (default data/bff.sqlite), or PostgreSQL at BFF_DATABASE_URL.`;

function fail(message: string): never {
  console.error(`members: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { budget: { type: 'string', multiple: true }, help: { type: 'boolean' } },
});

if (values.help || positionals.length === 0) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 2);
}

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}
const ledger = await openLedger(config);
const [command, argument] = positionals;

try {
  switch (command) {
    case 'add': {
      if (!argument) fail('add needs a NAME');
      const budgets: Budgets = {};
      for (const entry of values.budget ?? []) {
        const match = /^(\w+)=(\d+)$/.exec(entry);
        if (!match || !PRODUCTS.includes(match[1] as Product)) fail(`--budget must look like detector=5000 (products: ${PRODUCTS.join(', ')}), not "${entry}"`);
        budgets[match[1] as Product] = Number(match[2]);
      }
      const { member, token } = await createMember(ledger, argument, budgets).catch((error: Error) => fail(error.message));
      console.log(`Member "${member.name}" (${member.id}) created.\n\nToken (shown once, not stored; give it to the member):\n\n  ${token}\n`);
      break;
    }
    case 'list': {
      const members = await ledger.listMembers();
      if (members.length === 0) console.log('No members yet. Add one with: npm run members -- add NAME');
      for (const member of members) {
        const budgets = Object.entries(member.budgets).map(([product, words]) => `${product}=${words}`).join(' ') || 'no budget';
        console.log(`${member.id}  ${member.name.padEnd(20)}  ${member.tokenPrefix}  ${budgets}  created ${member.createdAt}${member.revokedAt ? `  REVOKED ${member.revokedAt}` : ''}`);
      }
      break;
    }
    case 'revoke': {
      if (!argument) fail('revoke needs a member id or name');
      if (!(await ledger.revokeMember(argument))) fail(`no active member with id or name "${argument}"`);
      console.log(`Revoked ${argument}. Its token no longer works.`);
      break;
    }
    default:
      fail(`unknown command "${command}"`);
  }
} finally {
  await ledger.close();
}
