import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from './config.ts';
import { createMember } from './members.ts';
import { startBff } from './server.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`Redline BFF: ${error.message}`);
    process.exit(2);
  }
  throw error;
}

const bff = await startBff(config);

// The BFF never runs open. On first run it creates one member and hands its token over in a
// file only this user can read, rather than in the log.
if ((await bff.ledger.countActiveMembers()) === 0) {
  const { token } = await createMember(bff.ledger, 'owner');
  const tokenFile = path.resolve(config.dataDir, 'first-member-token.txt');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  chmodSync(tokenFile, 0o600);
  console.log(`
Redline BFF is running at ${bff.url} (${config.upstream ? 'forwarding to the upstream service' : 'offline mode: built-in analyzers, no text leaves this server'}).

First run: a member "owner" was created. Its token is in
  ${tokenFile}
(readable only by you; delete the file once you have copied the token).

To connect the browser extension:
  1. Build it (npm run build:extension) and load extension/.output/chrome-mv3 as an unpacked
     extension (chrome://extensions, developer mode).
  2. Open its options page, set the BFF address to ${bff.url} and paste the token.
  Allowed extension origins: ${config.allowedOrigins.join(', ') || 'none'}. For Firefox or a store build,
  set BFF_ALLOWED_ORIGINS to the origin the options page shows (moz-extension://<uuid>).
Add more members with: npm run members -- add NAME
`);
} else if (existsSync(path.resolve(config.dataDir, 'first-member-token.txt'))) {
  console.log(`Reminder: delete ${path.resolve(config.dataDir, 'first-member-token.txt')} once the owner token is copied.`);
}
if (config.allowedOrigins.length === 0) {
  bff.logger.warn('BFF_ALLOWED_ORIGINS is empty: browsers (the extension) will be refused until its origin is added');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void bff.stop().then(() => process.exit(0));
  });
}
