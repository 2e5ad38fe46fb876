import { expect as playwrightExpect } from '@playwright/test';

/** How often `expect.poll` reads again: every 25 ms at first, then every 50 ms. */
const POLL_INTERVALS = [25, 50];

/**
 * Playwright's `expect`, whose `expect.poll` reads again every 25–50 ms instead of Playwright's
 * 100, 250 and 500 ms and then every second: a poll for what the extension does (a check's
 * toast, an accept's decision) otherwise passes up to a second after it came true, and the
 * suite waits on hundreds of them. A call's own `intervals` still win.
 */
export const expect = playwrightExpect.configure({});
const poll = expect.poll;
expect.poll = ((actual: () => unknown, messageOrOptions?: string | { message?: string; timeout?: number; intervals?: number[] }) =>
  poll(actual, { intervals: POLL_INTERVALS, ...(typeof messageOrOptions === 'string' ? { message: messageOrOptions } : messageOrOptions) })) as typeof expect.poll;
