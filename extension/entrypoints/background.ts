import { browser, type Browser } from 'wxt/browser';
import { runCheck } from '../lib/bff-client.ts';
import { ContentCommand, ToBackground, isOwnSender, type CheckReply, type ProductName } from '../lib/messages.ts';
import { withConnection } from '../lib/account.ts';
import { getSettings } from '../lib/settings.ts';
import { buildSuggestions } from '../lib/rewrite.ts';
import { clearTabState, endInterruptedChecks, setIgnoredItems, setLiveItems, setPanelFocus, setTabCheck } from '../lib/tab-state.ts';
import { recordCheck } from '../lib/history.ts';
import { summarize } from '../lib/summary.ts';
import { finished, underUnfinishedId } from '../lib/unfinished-checks.ts';

const MENU: Record<string, { product: ProductName; title: string }> = {
  'check-ai': { product: 'detector', title: 'Check for AI writing' },
  humanize: { product: 'humanizer', title: 'Humanize' },
  'check-sources': { product: 'plagiarism', title: 'Check sources' },
};

/** Check this page: the main text of the page being read (not an editor), for AI writing. */
const CHECK_PAGE = { id: 'check-page', title: 'Check this page for AI writing' };

async function sendToTab(tabId: number, command: ContentCommand, frameId?: number): Promise<void> {
  try {
    await browser.tabs.sendMessage(tabId, command, frameId === undefined ? undefined : { frameId });
  } catch {
    // No content script in this tab (a browser page, or the store): nothing to do there.
  }
}

/**
 * Starts a check in a tab: the content script captures the text and asks back with `check`.
 * Without a frame (keyboard commands), every frame hears it and only the one holding the
 * focus acts (the top frame when none does); a context-menu click names its frame.
 */
async function runInTab(tabId: number, product: ProductName, frameId?: number): Promise<void> {
  await sendToTab(tabId, { type: 'run', product, targeted: frameId !== undefined }, frameId);
}

/** The page's own frame reads its main text; frames inside it are not pages being read. */
async function checkPageInTab(tabId: number): Promise<void> {
  await sendToTab(tabId, { type: 'check-page' }, 0);
}

type CheckMessage = ToBackground & { type: 'check' };

/** Sends the check to the BFF, under the id of the same check left unanswered by a stopped service worker (unfinished-checks.ts). */
async function runOnce(message: CheckMessage) {
  const result = await withConnection((connection) => runCheck(connection, message));
  if (result.ok) await finished(message);
  return result;
}

/** One sentence rewritten from the card: answered to the page, not made the tab's result. */
async function handleSentence(message: CheckMessage): Promise<CheckReply> {
  const result = await runOnce(message);
  return result.ok ? { ok: true, response: result.value } : { ok: false, error: result.error };
}

async function handleCheck(asked: CheckMessage, tab: Browser.tabs.Tab, frameId: number): Promise<CheckReply> {
  const message = await underUnfinishedId(asked);
  const reply = await (message.scope === 'sentence' ? handleSentence(message) : handleTabCheck(message, tab, frameId));
  return { ...reply, operationId: message.operationId };
}

async function handleTabCheck(message: CheckMessage, tab: Browser.tabs.Tab, frameId: number): Promise<CheckReply> {
  const tabId = tab.id!;
  const url = tab.url ?? '';
  const started = {
    product: message.product,
    operationId: message.operationId,
    words: message.words,
    startedAt: Date.now(),
    text: message.text,
    frameId,
    ...(message.editor ? { editor: message.editor } : {}),
    ...(message.scope === 'page' ? { scope: 'page' as const, title: message.title ?? '' } : {}),
  };
  await setTabCheck(tabId, url, { ...started, status: 'checking' });
  const [settings, result] = await Promise.all([getSettings(), runOnce(message)]);
  const finishedAt = Date.now();
  if (result.ok) {
    const suggestions =
      message.product === 'humanizer'
        ? buildSuggestions(message.text, (result.value as { result: { humanized_text: string } }).result.humanized_text, settings.keepTerms)
        : undefined;
    await setTabCheck(tabId, url, { ...started, status: 'done', finishedAt, response: result.value, suggestions });
    await recordCheck({ url, title: tab.title ?? '', date: finishedAt, product: message.product, verdict: summarize(message.product, result.value, suggestions?.length), words: message.words });
    return { ok: true, response: result.value, suggestions: suggestions?.map(({ index, start, end }) => ({ index, start, end })) };
  }
  await setTabCheck(tabId, url, { ...started, status: 'error', finishedAt, error: result.error });
  return { ok: false, error: result.error };
}

/** What the side panel says of a check the stopped service worker was waiting on (unfinished-checks.ts keeps its id). */
const STOPPED_MID_CHECK = {
  code: 'extension_reloaded',
  message: 'The extension stopped during this check (the browser ends its background work now and then). Check the same text again within 10 minutes: it is answered from this check, not charged again.',
};

export default defineBackground(() => {
  // Before any message: a check recorded meanwhile is a live one, not one to end.
  const started = endInterruptedChecks(STOPPED_MID_CHECK).catch(() => {});
  browser.runtime.onInstalled.addListener(() => {
    void browser.contextMenus.removeAll().then(() => {
      for (const [id, { title }] of Object.entries(MENU)) {
        browser.contextMenus.create({ id, title, contexts: ['selection', 'editable', 'page'] });
      }
      browser.contextMenus.create({ ...CHECK_PAGE, contexts: ['page'] });
    });
  });

  browser.contextMenus.onClicked.addListener((info, tab) => {
    if (info.menuItemId === CHECK_PAGE.id && tab?.id !== undefined) return void checkPageInTab(tab.id);
    const entry = MENU[String(info.menuItemId)];
    if (entry && tab?.id !== undefined) void runInTab(tab.id, entry.product, info.frameId);
  });

  browser.commands.onCommand.addListener((command, tab) => {
    const entry = MENU[command];
    if (!entry && command !== CHECK_PAGE.id) return;
    const withTab = tab?.id !== undefined ? Promise.resolve(tab) : browser.tabs.query({ active: true, currentWindow: true }).then(([active]) => active);
    void withTab.then((target) => {
      if (target?.id === undefined) return;
      if (entry) void runInTab(target.id, entry.product);
      else void checkPageInTab(target.id);
    });
  });

  browser.tabs.onRemoved.addListener((tabId) => void clearTabState(tabId));

  if (browser.sidePanel) {
    void browser.sidePanel.setPanelBehavior?.({ openPanelOnActionClick: false }).catch(() => {});
  }

  browser.runtime.onMessage.addListener((raw, sender) => {
    if (!isOwnSender(sender, browser.runtime.id)) return undefined;
    const parsed = ToBackground.safeParse(raw);
    if (!parsed.success) return undefined;
    const message = parsed.data;
    if (message.type === 'check') {
      if (!sender.tab?.id) return Promise.resolve<CheckReply>({ ok: false, error: { code: 'invalid_request', message: 'Checks come from a page.' } });
      const tab = sender.tab;
      return started.then(() => handleCheck(message, tab, sender.frameId ?? 0));
    }
    if (message.type === 'live' && sender.tab?.id !== undefined) {
      const tabId = sender.tab.id;
      return started.then(() => setLiveItems(tabId, message.product, message.indices, message.undone));
    }
    if (message.type === 'ignored' && sender.tab?.id !== undefined) {
      const tabId = sender.tab.id;
      return started.then(() => setIgnoredItems(tabId, message.product, message.indices));
    }
    if (message.type === 'open-panel' && sender.tab?.id !== undefined) {
      const tabId = sender.tab.id;
      // Opened first: the side panel opens only while the click that asked for it is recent.
      const opened = browser.sidePanel?.open({ tabId }).catch(() => undefined);
      return Promise.all([opened, message.focus && setPanelFocus(tabId, message.focus)]).then(() => undefined);
    }
    if (message.type === 'check-page' && sender.url?.startsWith(browser.runtime.getURL('/'))) {
      // From an extension page (the popup): the page in the tab it names.
      return checkPageInTab(message.tabId);
    }
    return undefined;
  });

  // Lets end-to-end tests press a command without a keyboard shortcut: the same code path.
  Object.assign(globalThis, { redlineRunInTab: runInTab, redlineCheckPageInTab: checkPageInTab });
});
