import { browser } from 'wxt/browser';
import type { ContentCommand } from '../lib/messages.ts';

/** To the frame that holds the check's text (the page itself when unknown). */
export const send = (tabId: number, command: ContentCommand, frameId = 0): Promise<unknown> =>
  browser.tabs.sendMessage(tabId, command, { frameId }).catch(() => undefined);
