import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test as base, chromium, type BrowserContext, type Page, type Worker } from '@playwright/test';
import { PAGES_DIR } from './pages/build.ts';

// `chrome` exists only inside the extension's service worker, where these callbacks run.
declare const chrome: any;

const EXTENSION_DIR = path.resolve('extension/.output/chrome-mv3');

export interface Stack {
  context: BrowserContext;
  serviceWorker: Worker;
  extensionId: string;
  pagesUrl: string;
  bffUrl: string;
  doubleUrl: string;
  token: string;
  dataDir: string;
  /** Creates another member and returns its token. */
  addMember(name: string, ...budgets: string[]): string;
  /** Sets the extension's options as the options page would. */
  configure(settings: Record<string, unknown>, token?: string): Promise<void>;
  /** Presses a command (as the keyboard shortcut or context menu would) for the tab showing `page`. */
  run(page: Page, product: 'detector' | 'humanizer' | 'plagiarism'): Promise<void>;
  tabIdOf(page: Page): Promise<number>;
  openSidePanel(page: Page): Promise<Page>;
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
    const file = path.join(PAGES_DIR, path.normalize(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, ''));
    if (!file.startsWith(PAGES_DIR) || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export const test = base.extend<{ page: Page }, { stack: Stack }>({
  stack: [
    async ({}, use) => {
      const userDataDir = mkdtempSync(path.join(tmpdir(), 'redline-chromium-'));
      const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-e2e-bff-'));
      const context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: '/usr/bin/chromium',
        headless: true,
        args: [
          `--disable-extensions-except=${EXTENSION_DIR}`,
          `--load-extension=${EXTENSION_DIR}`,
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      });
      const serviceWorker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
      const extensionId = new URL(serviceWorker.url()).host;

      const [doublePort, bffPort] = [await freePort(), await freePort()];
      const children = [
        spawnTsx(['test/upstream/main.ts', '--port', String(doublePort), '--test-mode'], {}),
        spawnTsx(['bff/src/main.ts'], {
          BFF_PORT: String(bffPort),
          BFF_DATA_DIR: dataDir,
          BFF_LOG_LEVEL: 'warn',
          BFF_ALLOWED_ORIGINS: `chrome-extension://${extensionId}`,
          UPSTREAM_BASE_URL: `http://127.0.0.1:${doublePort}`,
          UPSTREAM_API_KEY: 'demo-key-primary',
          BFF_BACKOFF_BASE_MS: '50',
        }),
      ];
      const doubleUrl = `http://127.0.0.1:${doublePort}`;
      const bffUrl = `http://127.0.0.1:${bffPort}`;
      await waitFor(`${doubleUrl}/__control/state`);
      await waitFor(`${bffUrl}/readyz`);
      const pages = await servePages();

      const addMember = (name: string, ...budgets: string[]) => {
        const output = execFileSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', 'add', name, ...budgets.flatMap((budget) => ['--budget', budget])], {
          env: { ...process.env, BFF_DATA_DIR: dataDir },
          encoding: 'utf8',
        });
        return /(rl_[A-Za-z0-9_-]{43})/.exec(output)![1]!;
      };
      const token = addMember('e2e');

      const configure = async (settings: Record<string, unknown>, memberToken = token) => {
        await serviceWorker.evaluate(
          async ({ settings, memberToken }) => {
            const current = (await chrome.storage.local.get('settings')).settings ?? {};
            await chrome.storage.local.set({ settings: { ...current, ...settings }, memberToken });
          },
          { settings, memberToken },
        );
      };
      await configure({ bffUrl });

      const tabIdOf = async (page: Page) =>
        serviceWorker.evaluate(async (url) => {
          for (const tab of await chrome.tabs.query({})) {
            const reply = await chrome.tabs.sendMessage(tab.id!, { type: 'ping' }).catch(() => undefined);
            if (reply?.url === url) return tab.id!;
          }
          throw new Error(`no tab with the content script shows ${url}`);
        }, page.url());

      const stack: Stack = {
        context,
        serviceWorker,
        extensionId,
        pagesUrl: `http://127.0.0.1:${(pages.address() as AddressInfo).port}`,
        bffUrl,
        doubleUrl,
        token,
        dataDir,
        addMember,
        configure,
        tabIdOf,
        async run(page, product) {
          const tabId = await tabIdOf(page);
          await serviceWorker.evaluate(
            ({ tabId, product }) => (globalThis as unknown as { redlineRunInTab(id: number, p: string): Promise<void> }).redlineRunInTab(tabId, product),
            { tabId, product },
          );
        },
        async openSidePanel(page) {
          const tabId = await tabIdOf(page);
          const panel = await context.newPage();
          await panel.goto(`chrome-extension://${extensionId}/sidepanel.html?tabId=${tabId}`);
          return panel;
        },
      };
      await use(stack);

      pages.close();
      for (const child of children) child.kill('SIGTERM');
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  page: async ({ stack }, use) => {
    const page = await stack.context.newPage();
    await use(page);
    await page.close();
  },
});

export { expect } from '@playwright/test';
