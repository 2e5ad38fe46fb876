import { storage } from '#imports';
import type { CheckError, EditorInfo, ProductName } from './messages.ts';
import type { Suggestion } from './rewrite.ts';

/** The latest check of one product in one tab: what the side panel and popup show. */
export interface TabCheck {
  product: ProductName;
  status: 'checking' | 'done' | 'error';
  operationId: string;
  words: number;
  startedAt: number;
  finishedAt?: number;
  /** The frame of the tab whose text was checked (0: the page itself). */
  frameId: number;
  /** The editor the text came from (absent for older checks). */
  editor?: EditorInfo;
  /** The text as it was sent; results index into it. */
  text: string;
  response?: unknown;
  error?: CheckError;
  /** For a rewrite: the suggestions to review. */
  suggestions?: Suggestion[];
  /** Result items still found in the page's text; absent until the page reports an edit. */
  live?: number[];
  /** Accepted suggestions the writer took back with the editor's own undo (pending again). */
  undone?: number[];
  /** What was checked: a page's main text (with its title); absent for an editor, field or selection. */
  scope?: 'page';
  title?: string;
  /** Result items the writer chose to ignore in this document (card: *Ignore*). */
  ignored?: number[];
  /** Sources: matches the reviewer marked as cited, excluded from the displayed share. */
  cited?: number[];
}

export interface TabState {
  url: string;
  checks: Partial<Record<ProductName, TabCheck>>;
  /** The item the writer asked to see in the side panel (card: *Show in panel*), newest request. */
  focus?: { product: ProductName; index: number; at: number };
  /** The last finished check of each product before the current one (for before/after). */
  previous?: Partial<Record<ProductName, TabCheck>>;
}

// Session storage: kept across service-worker restarts, gone when the browser closes.
const keyOf = (tabId: number) => `session:tab-${tabId}` as const;

export async function getTabState(tabId: number): Promise<TabState | null> {
  return storage.getItem<TabState>(keyOf(tabId));
}

export async function setTabCheck(tabId: number, url: string, check: TabCheck): Promise<void> {
  const state = (await getTabState(tabId)) ?? { url, checks: {} };
  if (state.url !== url) {
    state.checks = {};
    delete state.previous;
  }
  state.url = url;
  const replaced = state.checks[check.product];
  if (replaced?.status === 'done' && replaced.operationId !== check.operationId) state.previous = { ...state.previous, [check.product]: replaced };
  state.checks[check.product] = check;
  await storage.setItem(keyOf(tabId), state);
}

/**
 * Ends the checks a stopped service worker left `checking`: their requests ended with it, and
 * nothing will answer them. Run when the worker starts, before it takes any message, so the side
 * panel says what happened instead of waiting for ever.
 */
export async function endInterruptedChecks(error: CheckError): Promise<void> {
  const stored = await storage.snapshot('session');
  for (const [key, value] of Object.entries(stored)) {
    if (!key.startsWith('tab-') || key.includes('$')) continue;
    const state = value as TabState;
    const interrupted = Object.values(state.checks).filter((check) => check?.status === 'checking');
    if (interrupted.length === 0) continue;
    for (const check of interrupted) Object.assign(check!, { status: 'error', finishedAt: Date.now(), error });
    await storage.setItem(`session:${key}`, state);
  }
}

export async function setLiveItems(tabId: number, product: ProductName, indices: number[], undone?: number[]): Promise<void> {
  const state = await getTabState(tabId);
  const check = state?.checks[product];
  if (!state || !check) return;
  check.live = indices;
  if (undone) check.undone = undone;
  await storage.setItem(keyOf(tabId), state);
}

export async function setIgnoredItems(tabId: number, product: ProductName, indices: number[]): Promise<void> {
  const state = await getTabState(tabId);
  const check = state?.checks[product];
  if (!state || !check) return;
  check.ignored = indices;
  await storage.setItem(keyOf(tabId), state);
}

export async function setPanelFocus(tabId: number, focus: { product: ProductName; index: number }): Promise<void> {
  const state = await getTabState(tabId);
  if (!state) return;
  state.focus = { ...focus, at: Date.now() };
  await storage.setItem(keyOf(tabId), state);
}

export async function setCited(tabId: number, indices: number[]): Promise<void> {
  const state = await getTabState(tabId);
  const check = state?.checks.plagiarism;
  if (!state || !check) return;
  check.cited = indices;
  await storage.setItem(keyOf(tabId), state);
}

export async function clearTabState(tabId: number): Promise<void> {
  await storage.removeItem(keyOf(tabId));
}

export function watchTabState(tabId: number, callback: (state: TabState | null) => void): () => void {
  return storage.watch<TabState>(keyOf(tabId), (state) => callback(state));
}
