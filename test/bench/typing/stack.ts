import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page, type Worker } from '@playwright/test';

// `chrome` exists only inside the extension's service worker, where these callbacks run.
declare const chrome: any;

export const EXTENSION_DIR = path.resolve('extension/.output/chrome-mv3');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await fetch(url).then((response) => response.status < 500, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up`);
}

function offlineEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['UPSTREAM_BASE_URL', 'UPSTREAM_API_KEY', 'UPSTREAM_API_KEY_FILE', 'BFF_DATABASE_URL', 'BFF_ALLOWED_ORIGINS']) delete env[name];
  return env;
}

/**
 * Who labels the sentences: `upstream`, the upstream double (its rule-based scorer labels the
 * benchmark document's stock-style third of sentences AI, the case), or `offline`, the
 * BFF's trained local detector (it labels nearly every sentence of that document AI).
 */
export type Labels = 'upstream' | 'offline';

function startProcess(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  // A benchmark that fails must not leave it running (it would also hold the output pipe open).
  process.once('exit', () => child.kill('SIGTERM'));
  return child;
}

/** The BFF with one member, labelling with the upstream double or offline. */
export async function startBff(labels: Labels): Promise<{ url: string; token: string; stop(): void }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-bench-bff-'));
  const env: NodeJS.ProcessEnv = { ...offlineEnv(), BFF_PORT: String(await freePort()), BFF_DATA_DIR: dataDir, BFF_LOG_LEVEL: 'warn' };
  let upstream: ChildProcess | undefined;
  if (labels === 'upstream') {
    const port = await freePort();
    const accounts = path.join(dataDir, 'accounts.json');
    writeFileSync(accounts, JSON.stringify([{ id: 'bench', keys: ['bench-key'], balances: { detector: 1e9, humanizer: 1e9, plagiarism: 1e9 } }]));
    upstream = startProcess(['test/upstream/main.ts', '--port', String(port), '--accounts', accounts], offlineEnv());
    env.UPSTREAM_BASE_URL = `http://127.0.0.1:${port}`;
    env.UPSTREAM_API_KEY = 'bench-key';
    await waitFor(env.UPSTREAM_BASE_URL);
  }
  const child = startProcess(['bff/src/main.ts'], env);
  const url = `http://127.0.0.1:${env.BFF_PORT}`;
  await waitFor(`${url}/readyz`);
  const output = execFileSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', 'add', 'bench'], { env: { ...process.env, BFF_DATA_DIR: dataDir }, encoding: 'utf8' });
  const token = /(rl_[A-Za-z0-9_-]{43})/.exec(output)![1]!;
  return {
    url,
    token,
    stop() {
      child.kill('SIGTERM');
      upstream?.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Serves fixed pages from memory. */
export function servePages(pages: Record<string, string>): Promise<{ url: string; close(): void }> {
  const server: Server = createServer((req, res) => {
    const body = pages[new URL(req.url ?? '/', 'http://x').pathname.slice(1)];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() })),
  );
}

export interface Browser {
  context: BrowserContext;
  /** The extension's service worker; absent when launched without the extension. */
  worker?: Worker;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with the built extension or without any. */
export async function launch(withExtension: boolean): Promise<Browser> {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'redline-bench-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      ...(withExtension ? [`--disable-extensions-except=${EXTENSION_DIR}`, `--load-extension=${EXTENSION_DIR}`] : []),
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const worker = withExtension ? (context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'))) : undefined;
  return {
    context,
    worker,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export async function configureExtension(worker: Worker, bffUrl: string, token: string): Promise<void> {
  await worker.evaluate(
    async ({ bffUrl, token }) => {
      const current = (await chrome.storage.local.get('settings')).settings ?? {};
      await chrome.storage.local.set({ settings: { ...current, bffUrl, confirmAboveWords: 10_000_000 }, memberToken: token });
    },
    { bffUrl, token },
  );
}

/** Runs the AI check in the tab showing `page`, as the keyboard shortcut would. */
export async function runDetector(worker: Worker, page: Page): Promise<void> {
  await worker.evaluate(async (url) => {
    for (const tab of await chrome.tabs.query({})) {
      const reply = await chrome.tabs.sendMessage(tab.id!, { type: 'ping' }).catch(() => undefined);
      if (reply?.url === url) return (globalThis as any).redlineRunInTab(tab.id, 'detector');
    }
    throw new Error(`no tab with the content script shows ${url}`);
  }, page.url());
}

export async function waitForToast(page: Page, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = await page.evaluate(() => document.querySelector('redline-toast')?.shadowRoot?.querySelector('.toast')?.textContent ?? '');
    if (pattern.test(text)) return text;
    await page.waitForTimeout(100);
  }
  throw new Error(`toast never matched ${pattern}; last: "${text}"`);
}
