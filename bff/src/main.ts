import path from 'node:path';
import v8 from 'node:v8';
import { OWN_CHROME_EXTENSION_ORIGIN } from '@redline/shared';
import { ConfigError, loadConfig, type BffConfig } from './config.ts';
import { ensureFirstMember, tokenFileLeftBehind, type FirstRun } from './first-run.ts';
import { LedgerUnavailableError } from './storage/faults.ts';
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

// V8 lets the heap grow to several times what survived its last full GC before it collects
// again; under load that doubled the BFF's memory for garbage (npm run bench, README). The flag
// is read at every GC, so setting it now takes effect.
if (config.heapGrowingPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);

const bff = await startBff(config);

/** Offline plagiarism knows only its sources: say which, so nobody reads "no match" as "original". */
function offlineSourcesNote(folder: string | undefined): string {
  if (!folder) {
    return `Offline source check: searches only a built-in sample of 5 short passages. Set BFF_OFFLINE_SOURCES_DIR
to a folder of .txt/.md files to check against your own sources; nothing else is searched.`;
  }
  return `Offline source check: searches the .txt/.md files in ${path.resolve(folder)}
(indexed once, in the background; a restart reads the saved index unless a file changed),
and nothing else: no web, no other folders.`;
}

/** What the first start hands over (the owner's token file) or reminds of. */
function announce(firstRun: FirstRun, config: BffConfig): void {
  const { tokenFile } = firstRun;
  if (firstRun.created) {
    // `npm start` builds the extension before it starts the BFF; started otherwise, say how to build it.
    const built = process.env.REDLINE_EXTENSION_BUILT === '1' ? 'npm start has just built it' : 'build it with npm run build:extension';
    const chromeAllowed = config.allowedOrigins.includes(OWN_CHROME_EXTENSION_ORIGIN);
    console.log(`
Redline BFF is running at ${bff.url} (${config.upstream ? 'forwarding to the upstream service' : 'offline mode: built-in analyzers, no text leaves this server'}).
${config.upstream ? '' : `${offlineSourcesNote(config.offlineSourcesDir)}\n`}
First run: a member "owner" was created. Its token is in
  ${tokenFile}
(readable only by you; delete the file once you have copied the token).

To connect the browser extension (${built}):
  Chrome:  load extension/.output/chrome-mv3 as an unpacked extension (chrome://extensions,
           developer mode).${chromeAllowed ? ' Its origin is allowed by default.' : ''}
  Firefox: load extension/.output/firefox-mv3/manifest.json as a temporary add-on
           (about:debugging, This Firefox), then restart this BFF with the
           BFF_ALLOWED_ORIGINS=... line its options page shows.
  In the extension's options, open Advanced, set the server address to ${bff.url} and paste the token.
Allowed extension origins now: ${config.allowedOrigins.join(', ') || 'none'}.
Add more members with: npm run members -- add NAME
`);
  } else if (tokenFileLeftBehind(firstRun)) {
    console.log(`Reminder: delete ${tokenFile} once the owner token is copied.`);
  }
}

/**
 * The owner is made (or found) on the ledger. An unavailable ledger (a read-only or full disk,
 * a file the BFF user cannot open) does not stop the BFF, as it does not stop startBff: its
 * own log line says what to fix, and the owner is made once the ledger is back.
 */
async function ensureOwner(config: BffConfig): Promise<void> {
  try {
    announce(await ensureFirstMember(bff.ledger, config.dataDir), config);
  } catch (error) {
    if (!(error instanceof LedgerUnavailableError)) throw error;
    setTimeout(() => void ensureOwner(config), config.ledgerProbeMs);
  }
}
await ensureOwner(config);
if (config.allowedOrigins.length === 0) {
  bff.logger.warn('BFF_ALLOWED_ORIGINS is empty: browsers (the extension) will be refused until its origin is added');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void bff.stop().then(() => process.exit(0));
  });
}
