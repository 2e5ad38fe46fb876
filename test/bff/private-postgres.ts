import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A PostgreSQL server of the test's own (initdb + pg_ctl in a temporary folder, on a free
 * port), so that a test can stop and start a real server without touching the machine's
 * shared one. Runs as the `postgres` user when the test runs as root.
 */

const BIN = '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  url: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function asPostgresUser(command: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  execFileSync(root ? 'runuser' : command, root ? ['-u', 'postgres', '--', command, ...args] : args, { stdio: 'pipe' });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(folder, uid, gid);
  }
  const data = path.join(folder, 'data');
  const port = await freePort();
  asPostgresUser(`${BIN}/initdb`, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const ctl = (...args: string[]) => asPostgresUser(`${BIN}/pg_ctl`, ['-D', data, '-l', path.join(folder, 'log'), '-w', ...args]);
  const start = () => ctl('-o', options, 'start');
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => ctl('-m', 'fast', 'stop'),
    start,
    destroy() {
      try {
        ctl('-m', 'immediate', 'stop');
      } catch {
        // already stopped
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
