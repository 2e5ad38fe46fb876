import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { getTabState, watchTabState, type TabState } from '../lib/tab-state.ts';

/** The tab under review: `?tabId=` when given (tests, pinned panels), else the active tab. */
export function useReviewedTab(): number | undefined {
  const pinned = Number(new URLSearchParams(location.search).get('tabId')) || undefined;
  const [tabId, setTabId] = useState<number | undefined>(pinned);
  useEffect(() => {
    if (pinned) return;
    void browser.tabs.query({ active: true, currentWindow: true }).then(([tab]) => setTabId(tab?.id));
    const onActivated = ({ tabId: active }: { tabId: number }) => setTabId(active);
    browser.tabs.onActivated.addListener(onActivated);
    return () => browser.tabs.onActivated.removeListener(onActivated);
  }, [pinned]);
  return tabId;
}

export function useTabState(tabId: number | undefined): TabState | null {
  const [state, setState] = useState<TabState | null>(null);
  useEffect(() => {
    if (tabId === undefined) return;
    void getTabState(tabId).then(setState);
    return watchTabState(tabId, setState);
  }, [tabId]);
  return state;
}
