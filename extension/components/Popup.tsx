import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { PRODUCTS, type BffUsageResponse } from '@redline/shared';
import { getUsage } from '../lib/bff-client.ts';
import type { CheckError } from '../lib/messages.ts';
import { withConnection } from '../lib/account.ts';
import { getSettings, updateSettings, type Settings } from '../lib/settings.ts';
import { PRODUCT_TITLES, summarize } from '../lib/summary.ts';
import { CheckButtons } from './CheckButtons.tsx';
import { Status } from './Status.tsx';
import { useReviewedTab, useTabState } from './useTabState.ts';

const PRODUCT_NAMES = { detector: 'AI detector', humanizer: 'Humanizer', plagiarism: 'Sources' } as const;

/** The current page's last results in words. */
function LastResult({ tabId }: { tabId: number | undefined }) {
  const state = useTabState(tabId);
  const checks = PRODUCTS.map((product) => state?.checks[product]).filter((check) => check !== undefined);
  return (
    <section aria-labelledby="page-heading">
      <h2 id="page-heading">This page</h2>
      {checks.length === 0 ? (
        <p class="muted" data-testid="last-result">
          No check on this page yet.
        </p>
      ) : (
        <ul class="plain" data-testid="last-result">
          {checks.map((check) => (
            <li key={check.product}>
              <strong>{PRODUCT_TITLES[check.product]}:</strong>{' '}
              {check.status === 'done' ? summarize(check.product, check.response, check.suggestions?.length) : <Status check={check} label="Checking" />}
            </li>
          ))}
        </ul>
      )}
      <CheckButtons tabId={tabId} frameId={checks[0]?.frameId} />
    </section>
  );
}

export function Popup() {
  const tabId = useReviewedTab();
  const [settings, setSettings] = useState<Settings>();
  const [usage, setUsage] = useState<BffUsageResponse>();
  const [error, setError] = useState<CheckError>();
  const [hostname, setHostname] = useState<string>();

  // Words left, again after each check of this page finishes (one started from this popup included).
  const state = useTabState(tabId);
  const finished = PRODUCTS.map((product) => state?.checks[product])
    .filter((check) => check?.status === 'done')
    .map((check) => check!.operationId)
    .join(',');
  useEffect(() => {
    void getSettings().then(setSettings);
  }, []);
  useEffect(() => {
    void (async () => {
      const result = await withConnection((connection) => getUsage(connection));
      if (result.ok) (setUsage(result.value), setError(undefined));
      else setError(result.error);
    })();
  }, [finished]);
  useEffect(() => {
    if (tabId === undefined) return;
    void browser.tabs.get(tabId).then(
      (tab) => {
        try {
          setHostname(tab.url ? new URL(tab.url).hostname || undefined : undefined);
        } catch {
          setHostname(undefined);
        }
      },
      () => setHostname(undefined),
    );
  }, [tabId]);

  const siteOff = settings && hostname ? settings.disabledSites.includes(hostname) : false;
  const toggleSite = async () => {
    if (!settings || !hostname) return;
    const disabledSites = siteOff ? settings.disabledSites.filter((site) => site !== hostname) : [...settings.disabledSites, hostname];
    setSettings(await updateSettings({ disabledSites }));
  };
  const openPanel = async () => {
    const window = await browser.windows.getCurrent();
    await browser.sidePanel?.open({ windowId: window.id! }).catch(() => undefined);
    (browser as unknown as { sidebarAction?: { open(): Promise<void> } }).sidebarAction?.open();
  };

  return (
    <main class="popup">
      <h1>Redline</h1>
      <LastResult tabId={tabId} />
      <section aria-labelledby="budget-heading">
        <h2 id="budget-heading">Words left</h2>
        {!usage && !error && <p class="muted">Connecting to {settings?.bffUrl ?? 'your team’s Redline server'}…</p>}
        {error && (
          <p class="error" role="alert" data-testid="connection">
            {error.message}
          </p>
        )}
        {usage && (
          <>
            <p class="muted" data-testid="connection">
              Connected as {usage.member.name} · {usage.mode === 'offline' ? 'offline analyzers' : 'analysis service'}
            </p>
            <table data-testid="usage">
              <tbody>
                {PRODUCTS.map((product) => {
                  const figures = usage.products[product];
                  return (
                    <tr key={product}>
                      <th scope="row">{PRODUCT_NAMES[product]}</th>
                      <td>
                        {figures.remaining !== undefined
                          ? `${figures.remaining.toLocaleString()} of ${figures.budget!.toLocaleString()} words left`
                          : `no limit · ${figures.wordsCharged.toLocaleString()} words used`}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </>
        )}
      </section>
      {hostname && (
        <p class="row">
          <input id="site-on" type="checkbox" checked={!siteOff} onChange={() => void toggleSite()} />
          <label for="site-on">On for {hostname}</label>
        </p>
      )}
      <p class="row">
        <button type="button" onClick={() => void openPanel()}>
          Open review panel
        </button>
        <button type="button" onClick={() => void browser.runtime.openOptionsPage()}>
          Options
        </button>
      </p>
    </main>
  );
}
