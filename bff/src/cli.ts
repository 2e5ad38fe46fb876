import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PRODUCTS, type Product } from '@redline/shared';
import { ConfigError, loadConfig } from './config.ts';
import { createExtensionLink } from './auth/extension-link.ts';
import { createSignInLink } from './console/links.ts';
import { createLogger } from './logging.ts';
import { MAX_BUDGET_WORDS, createMember, endMemberAccess, revokeMember } from './members.ts';
import type { Budgets, MemberRecord } from './storage/ledger.ts';
import { openLedger } from './storage/open.ts';

const USAGE = `Usage: npm run members -- <command>

  add NAME [--budget detector=N] [--budget humanizer=N] [--budget plagiarism=N]
      Creates a member and prints its token once. Budgets cap the member's words per product.
  list
      Lists members (id, name, token prefix, budgets, created, revoked).
  revoke ID_OR_NAME
      Revokes a member's token and sign-ins (OAuth grants: MCP clients, the extension) at once.
  role ID_OR_NAME admin|member
      Makes a member an administrator of the team console, or a plain member (never the last
      administrator: nobody could use the console after it).
  link ID_OR_NAME
      Prints a one-time sign-in link to the team console (/console) for that member
      (valid 24 hours, once). The address is BFF_PUBLIC_URL, or http://BFF_HOST:BFF_PORT.
  extension-link ID_OR_NAME
      Prints a one-time sign-in link for the browser extension (paste it into the
      extension's options; valid 24 hours, once), with the same address.

The ledger is BFF_DATA_DIR/bff.sqlite (default data/bff.sqlite), or PostgreSQL at BFF_DATABASE_URL.`;

/** One line saying what went wrong, one line saying where to look; never the whole usage. */
function fail(message: string, hint = 'Run "npm run members -- --help" for the commands and options.'): never {
  console.error(`members: ${message.replace(/\s*\n\s*/g, ' ')}\n${hint}`);
  process.exit(2);
}

const parsed = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: { budget: { type: 'string', multiple: true }, help: { type: 'boolean' } } });
  } catch (error) {
    return fail((error as Error).message);
  }
})();
const { positionals, values } = parsed;

if (values.help || positionals.length === 0) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 2);
}

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fail(error.message, 'Fix the environment variable named above (the README lists them).');
  throw error;
}
// The CLI works on the BFF's ledger. Only `add` starts a new one (members added before the
// first start), and says where; nothing else reads an empty ledger the BFF may not be using.
const newLedger = !config.databaseUrl && !existsSync(config.databaseFile);
const where = `${config.dataDir} (BFF_DATA_DIR${process.env.BFF_DATA_DIR ? '' : ' is not set: the default'})`;
if (newLedger && positionals[0] !== 'add') {
  fail(`there is no ledger in ${where}`, 'Run this with the BFF_DATA_DIR (or BFF_DATABASE_URL) the BFF runs with, or start the BFF once to create it.');
}
if (newLedger) console.error(`members: starting a new ledger in ${where}; the BFF must run with the same BFF_DATA_DIR to know this member.`);
const ledger = await openLedger(config, { logger: createLogger('warn') }).catch((error: Error) =>
  fail(`cannot open the ledger: ${error.message}`, 'Check BFF_DATA_DIR or BFF_DATABASE_URL, and that the BFF can reach it.'),
);
const [command, argument] = positionals;

/** The active member with this id (first) or name. */
function activeMemberNamed(members: MemberRecord[], idOrName: string): MemberRecord {
  const member = members.find((candidate) => candidate.id === idOrName) ?? members.find((candidate) => candidate.name === idOrName);
  return member ?? fail(`no active member with id or name "${idOrName}".`, 'List the members with: npm run members -- list');
}

/** The audit log records what the CLI does as it records the console's actions. */
async function audit(action: string, target: string, detail: Record<string, unknown>): Promise<void> {
  await (await ledger.consoleStore()).audit({ at: Date.now(), actorId: null, actorName: 'server (npm run members)', action, target, detail, address: 'local' });
}

try {
  switch (command) {
    case 'add': {
      if (!argument) fail('add needs a NAME');
      const budgets: Budgets = {};
      for (const entry of values.budget ?? []) {
        const match = /^(\w+)=(\d+)$/.exec(entry);
        if (!match || !PRODUCTS.includes(match[1] as Product)) fail(`--budget must look like detector=5000 (products: ${PRODUCTS.join(', ')}), not "${entry}"`);
        const words = Number(match[2]);
        if (words > MAX_BUDGET_WORDS) fail(`--budget ${match[1]}=${match[2]} is more than the largest budget, ${MAX_BUDGET_WORDS.toLocaleString('en-US')} words`);
        budgets[match[1] as Product] = words;
      }
      const { member, token } = await createMember(ledger, argument, budgets).catch((error: Error) =>
        fail(error.message, 'Choose another name, or list the members with: npm run members -- list'),
      );
      await audit('member_added', member.id, { name: member.name, budgets });
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
      const members = (await ledger.listMembers()).filter((candidate) => !candidate.revokedAt);
      const member = activeMemberNamed(members, argument);
      if (member.role === 'admin' && !members.some((other) => other.role === 'admin' && other.id !== member.id)) {
        fail(
          `"${member.name}" is the team's last administrator: revoking them would leave nobody who can use the console.`,
          'Make another member an administrator in the console first. To replace a leaked token, rotate it in the console instead.',
        );
      }
      if (!(await revokeMember(ledger, member.id))) fail(`no active member with id or name "${argument}".`, 'List the members with: npm run members -- list');
      const { grants, sessions } = await endMemberAccess(ledger, member.id, Date.now());
      await audit('member_revoked', member.id, { name: member.name, grants, sessions });
      const ended = [grants && `${grants} sign-in${grants === 1 ? '' : 's'} (MCP clients and the extension)`, sessions && `${sessions} console session${sessions === 1 ? '' : 's'}`].filter(Boolean);
      console.log(`Revoked "${member.name}" (${member.id}). Its token no longer works${ended.length ? `, nor its ${ended.join(' and its ')}` : ''}.`);
      break;
    }
    case 'role': {
      const role = positionals[2];
      if (!argument || (role !== 'admin' && role !== 'member')) fail('role needs a member id or name and "admin" or "member"', 'For example: npm run members -- role ada admin');
      const member = activeMemberNamed((await ledger.listMembers()).filter((candidate) => !candidate.revokedAt), argument);
      if (!(await (await ledger.consoleStore()).setRole(member.id, role))) {
        fail(`"${member.name}" is the team's last administrator: making them a member would leave nobody who can use the console.`, `Make another member an administrator first: npm run members -- role NAME admin`);
      }
      await audit('role_changed', member.id, { name: member.name, role });
      console.log(`"${member.name}" (${member.id}) is now ${role === 'admin' ? 'an administrator' : 'a member'}.`);
      break;
    }
    case 'link':
    case 'extension-link': {
      if (!argument) fail(`${command} needs a member id or name`);
      const member = activeMemberNamed((await ledger.listMembers()).filter((candidate) => !candidate.revokedAt), argument);
      const origin = config.publicUrl ? new URL(config.publicUrl).origin : `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
      const store = await ledger.consoleStore();
      if (command === 'extension-link') {
        const link = await createExtensionLink(store, member.id, 'cli', origin, Date.now());
        await audit('extension_link_created', member.id, { name: member.name, expiresAt: link.expiresAt });
        console.log(`One-time extension sign-in link for "${member.name}", valid until ${new Date(link.expiresAt).toISOString()}. Paste it into the extension's options:\n\n  ${link.url}\n`);
        break;
      }
      const link = await createSignInLink(store, member.id, 'cli', origin, Date.now());
      await audit('sign_in_link_created', member.id, { name: member.name, expiresAt: link.expiresAt });
      console.log(`One-time console sign-in link for "${member.name}" (${member.role}), valid until ${new Date(link.expiresAt).toISOString()}:\n\n  ${link.url}\n`);
      break;
    }
    default:
      fail(`unknown command "${command}"`);
  }
} finally {
  await ledger.close();
}
