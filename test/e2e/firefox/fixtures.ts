import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test as base } from '@playwright/test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { FIREFOX_PATH } from '../../system.ts';
import { startBackend, type Backend } from '../backend.ts';
import { poll } from './poll.ts';

// `browser` (the WebExtension API) exists only in the extension's pages, where these callbacks run.
declare const browser: any;

const EXTENSION_DIR = path.resolve('extension/.output/firefox-mv3');
const ADDON_ID = 'redline@example.org';

export interface FirefoxStack extends Backend {
  browser: Browser;
  /** This profile's `moz-extension://<uuid>` origin, the one the BFF is started to allow. */
  origin: string;
  token: string;
  /** Opens one of the extension's pages (options.html, popup.html, …) in a tab. */
  openExtensionPage(pathname: string): Promise<Page>;
  /** Sets the extension's options as the options page would. */
  configure(settings: Record<string, unknown>, token?: string): Promise<void>;
  /** Presses a command (as the keyboard shortcut or context menu would) for the tab showing `page`. */
  run(page: Page, product: 'detector' | 'humanizer' | 'plagiarism'): Promise<void>;
  /** *Check this page* for the tab showing `page`, as the command, context menu and popup do. */
  checkPage(page: Page): Promise<void>;
  tabIdOf(page: Page): Promise<number>;
  /** The sidebar's page for the tab showing `page`, opened in a tab of its own. */
  openSidebar(page: Page): Promise<Page>;
  /** The sidebar's page for the tab showing `page` in a window of its own, so that page stays visible beside it (as beside a real sidebar), without the focus. */
  openSidebarWindow(page: Page): Promise<Page>;
}

/**
 * Debian's Firefox ESR over WebDriver BiDi (puppeteer-core) with the Firefox build installed as
 * a temporary add-on (BiDi `webExtension.install`), against the real BFF and the double.
 *
 * Firefox gives an add-on's `moz-extension://` origin a random UUID per profile. The test
 * picks that UUID in the profile's preferences before the add-on is installed, so it knows
 * the origin up front and starts the BFF with exactly that in BFF_ALLOWED_ORIGINS, as an
 * administrator does with the origin the options page shows.
 */
export const test = base.extend<{ tab: Page }, { firefox: FirefoxStack }>({
  firefox: [
    async ({}, use) => {
      const uuid = randomUUID();
      const origin = `moz-extension://${uuid}`;
      const backend = await startBackend(origin);
      const profile = mkdtempSync(path.join(tmpdir(), 'redline-firefox-'));
      const firefox = await puppeteer.launch({
        browser: 'firefox',
        executablePath: FIREFOX_PATH,
        headless: true,
        userDataDir: profile,
        // Lets the automation open the extension's own pages (options, sidebar) in a tab.
        args: ['--remote-allow-system-access'],
        extraPrefsFirefox: { 'extensions.webextensions.uuids': JSON.stringify({ [ADDON_ID]: uuid }) },
      });
      const installed = await firefox.installExtension(EXTENSION_DIR);
      if (installed !== ADDON_ID) throw new Error(`installed ${installed}, expected ${ADDON_ID}`);

      const openExtensionPage = async (pathname: string) => {
        const page = await firefox.newPage();
        const url = `${origin}/${pathname}`;
        // Firefox reports no navigation events for extension pages over BiDi, so wait for the
        // document itself; the navigation promise settles (ignored) when the tab closes.
        void page.goto(url, { timeout: 0 }).catch(() => {});
        for (let i = 0; i < 100; i++) {
          const loaded = await page.evaluate((url) => location.href === url && document.readyState === 'complete', url).catch(() => false);
          if (loaded) return page;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error(`${url} did not load`);
      };
      // An extension page of our own to reach the WebExtension API from.
      const control = await openExtensionPage('popup.html');
      const token = backend.addMember('e2e');

      const configure = async (settings: Record<string, unknown>, memberToken = token) => {
        await control.evaluate(
          async (settings, memberToken) => {
            const current = (await browser.storage.local.get('settings')).settings ?? {};
            await browser.storage.local.set({ settings: { ...current, ...settings }, memberToken });
            await browser.storage.local.remove('signIn'); // a member token and a sign-in are one or the other
          },
          settings,
          memberToken,
        );
      };
      await configure({ bffUrl: backend.bffUrl });

      const tabIdOf = (page: Page) =>
        control.evaluate(async (url: string) => {
          for (const tab of await browser.tabs.query({})) {
            const reply = await browser.tabs.sendMessage(tab.id, { type: 'ping' }).catch(() => undefined);
            if (reply?.url === url) return tab.id as number;
          }
          throw new Error(`no tab with the content script shows ${url}`);
        }, page.url());

      const stack: FirefoxStack = {
        ...backend,
        browser: firefox,
        origin,
        token,
        openExtensionPage,
        configure,
        tabIdOf,
        async run(page, product) {
          const tabId = await tabIdOf(page);
          // The background page's own entry point, the one its command and menu listeners call.
          await control.evaluate(
            async (tabId: number, product: string) => (await browser.runtime.getBackgroundPage()).redlineRunInTab(tabId, product),
            tabId,
            product,
          );
        },
        async checkPage(page) {
          const tabId = await tabIdOf(page);
          await control.evaluate(async (tabId: number) => (await browser.runtime.getBackgroundPage()).redlineCheckPageInTab(tabId), tabId);
        },
        async openSidebar(page) {
          const panel = await openExtensionPage(`sidepanel.html?tabId=${await tabIdOf(page)}`);
          return panel;
        },
        async openSidebarWindow(page) {
          const url = `${origin}/sidepanel.html?tabId=${await tabIdOf(page)}`;
          const sidebar = await firefox.newPage({ type: 'window' });
          void sidebar.goto(url, { timeout: 0 }).catch(() => {});
          await poll(() => sidebar.evaluate((url) => location.href === url && document.readyState === 'complete', url).catch(() => false), Boolean, 10_000);
          return sidebar;
        },
      };
      await use(stack);

      await firefox.close();
      await backend.stop();
      rmSync(profile, { recursive: true, force: true });
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  tab: async ({ firefox }, use) => {
    const page = await firefox.browser.newPage();
    await use(page);
    await page.close();
  },
});

export { expect } from '../expect.ts';
