import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PAGES_DIR } from './pages/build.ts';

/** The real BFF and the upstream double in their own processes, and the test pages' server. */
export interface Backend {
  bffUrl: string;
  doubleUrl: string;
  pagesUrl: string;
  dataDir: string;
  /** Creates a member through the BFF's CLI and returns its token. */
  addMember(name: string, ...budgets: string[]): string;
  stop(): Promise<void>;
}

function spawnTsx(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await fetch(url).then((response) => response.status < 500, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up`);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function servePages(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/hanging-frame.html') {
      // A frame that never finishes loading: the content script (document_idle) never arrives in it.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<!doctype html><div contenteditable="true">Moreover, it is important to note this.</div>');
      setTimeout(() => res.end(), 60_000).unref();
      return;
    }
    const file = path.join(PAGES_DIR, path.normalize(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, ''));
    if (!file.startsWith(PAGES_DIR) || !existsSync(file)) return void res.writeHead(404).end();
    const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : file.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export interface BffProcess {
  url: string;
  dataDir: string;
  /** Creates a member through the BFF's CLI and returns its token. */
  addMember(name: string, ...budgets: string[]): string;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Starts `bff/src/main.ts` as `npm start` would, on a free port with its own data folder:
 * forwarding to `upstreamUrl`, or offline without one. `allowedOrigins` undefined keeps the
 * BFF's default (this repository's Chrome build).
 */
export async function startBff(options: { allowedOrigins?: string; upstreamUrl?: string }): Promise<BffProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-e2e-bff-'));
  const port = await freePort();
  const child = spawnTsx(['bff/src/main.ts'], {
    BFF_PORT: String(port),
    BFF_DATA_DIR: dataDir,
    BFF_LOG_LEVEL: 'warn',
    BFF_BACKOFF_BASE_MS: '50',
    // Lets the console store upstream keys (encrypted under it); a fixed test value.
    BFF_SECRET_KEY: 'cmVkbGluZS1lMmUtdGVzdC1zZWNyZXQta2V5LTMyYnk=',
    ...(options.allowedOrigins === undefined ? {} : { BFF_ALLOWED_ORIGINS: options.allowedOrigins }),
    ...(options.upstreamUrl ? { UPSTREAM_BASE_URL: options.upstreamUrl, UPSTREAM_API_KEY: 'demo-key-primary' } : {}),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`);
  return {
    url,
    dataDir,
    addMember(name, ...budgets) {
      const output = execFileSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', 'add', name, ...budgets.flatMap((budget) => ['--budget', budget])], {
        env: { ...process.env, BFF_DATA_DIR: dataDir },
        encoding: 'utf8',
      });
      return /(rl_[A-Za-z0-9_-]{43})/.exec(output)![1]!;
    },
    async stop() {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts the double and a BFF that forwards to it and allows exactly `allowedOrigin`. */
export async function startBackend(allowedOrigin: string): Promise<Backend> {
  const doublePort = await freePort();
  const double = spawnTsx(['test/upstream/main.ts', '--port', String(doublePort), '--test-mode'], {});
  const doubleUrl = `http://127.0.0.1:${doublePort}`;
  await waitFor(`${doubleUrl}/__control/state`);
  const bff = await startBff({ allowedOrigins: allowedOrigin, upstreamUrl: doubleUrl });
  const pages = await servePages();
  return {
    bffUrl: bff.url,
    doubleUrl,
    pagesUrl: `http://127.0.0.1:${(pages.address() as AddressInfo).port}`,
    dataDir: bff.dataDir,
    addMember: bff.addMember,
    async stop() {
      pages.close();
      await Promise.all([bff.stop(), stopChild(double)]);
    },
  };
}
