// `npm test` runs this first: it changes nothing, and says what is missing and the one
// command that provides it. Under CI it runs that command itself.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { CHROMIUM_PATH, FIREFOX_PATH, TEST_DATABASE_URL } from '../test/system.ts';

async function databaseProblem(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `PostgreSQL database for the tests at ${TEST_DATABASE_URL.replace(/:[^:@/]*@/, '@')} (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

async function missing(): Promise<string[]> {
  const problems: string[] = [];
  if (!existsSync(CHROMIUM_PATH)) problems.push(`Chromium at ${CHROMIUM_PATH} (Debian package chromium)`);
  if (!existsSync(FIREFOX_PATH)) problems.push(`Firefox ESR at ${FIREFOX_PATH} (Debian package firefox-esr)`);
  const database = await databaseProblem();
  if (database) problems.push(database);
  return problems;
}

let problems = await missing();
if (problems.length > 0 && process.env.CI) {
  console.log(`CI is set: running npm run setup for ${problems.length} missing part(s)`);
  execFileSync('bash', ['.ci/system-deps'], { stdio: 'inherit' });
  problems = await missing();
}
if (problems.length > 0) {
  console.error(
    [
      'npm test needs these on this machine, and they are missing:',
      ...problems.map((problem) => `  - ${problem}`),
      'Install and start them with (as root; it says every change it makes):',
      '  npm run setup',
      'or set TEST_DATABASE_URL to a PostgreSQL database the tests may use.',
    ].join('\n'),
  );
  process.exit(1);
}
