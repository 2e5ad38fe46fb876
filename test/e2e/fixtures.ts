import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test as base, chromium, type BrowserContext, type Page, type Worker } from '@playwright/test';
import { startBackend } from './backend.ts';
import { CHROMIUM_PATH } from '../system.ts';

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

export const test = base.extend<{ page: Page }, { stack: Stack }>({
  stack: [
    async ({}, use) => {
      const userDataDir = mkdtempSync(path.join(tmpdir(), 'redline-chromium-'));
      const context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM_PATH,
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

      const backend = await startBackend(`chrome-extension://${extensionId}`);
      const { bffUrl, doubleUrl, pagesUrl, dataDir, addMember } = backend;
      const token = addMember('e2e');

      const configure = async (settings: Record<string, unknown>, memberToken = token) => {
        await serviceWorker.evaluate(
          async ({ settings, memberToken }) => {
            const current = (await chrome.storage.local.get('settings')).settings ?? {};
            await chrome.storage.local.set({ settings: { ...current, ...settings }, memberToken });
            await chrome.storage.local.remove('signIn'); // a member token and a sign-in are one or the other
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
        pagesUrl,
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

      await context.close();
      await backend.stop();
      rmSync(userDataDir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  page: async ({ stack }, use) => {
    const page = await stack.context.newPage();
    await use(page);
    await page.close();
  },
});

export { expect } from './expect.ts';
