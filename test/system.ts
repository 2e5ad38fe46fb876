import { connect } from 'node:net';

/**
 * What the tests need from the machine, in one place: `npm test` checks these first
 * (.ci/check-system.ts) and `npm run setup` (.ci/system-deps) provides them.
 */

/** Debian's Chromium; Playwright never downloads a browser of its own. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Debian's Firefox ESR, driven over WebDriver BiDi. */
export const FIREFOX_PATH = '/usr/bin/firefox-esr';

/**
 * The ledger tests' own database (each test uses its own schema in it), created by
 * `npm run setup`; TEST_DATABASE_URL points the tests at another one.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://redline_test:redline_test@127.0.0.1:5432/redline_test';

/** Whether a TCP server answers at a URL's host and port (default 6379, Redis) within a second. */
export function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    const answer = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(1_000);
    socket.once('connect', () => answer(true));
    socket.once('error', () => answer(false));
    socket.once('timeout', () => answer(false));
  });
}
