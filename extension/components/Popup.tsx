import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import { PRODUCTS, type BffUsageResponse } from '@redline/shared';
import { getUsage } from '../lib/bff-client.ts';
import type { CheckError } from '../lib/messages.ts';
import { getSettings, tokenItem, updateSettings, type Settings } from '../lib/settings.ts';

const PRODUCT_NAMES = { detector: 'AI detector', humanizer: 'Humanizer', plagiarism: 'Sources' } as const;

export function Popup() {
  const [settings, setSettings] = useState<Settings>();
  const [usage, setUsage] = useState<BffUsageResponse>();
  const [error, setError] = useState<CheckError>();
  const [hostname, setHostname] = useState<string>();

  useEffect(() => {
    void (async () => {
      const current = await getSettings();
      setSettings(current);
      const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
      try {
        setHostname(tab?.url ? new URL(tab.url).hostname || undefined : undefined);
      } catch {
        setHostname(undefined);
      }
      const result = await getUsage({ url: current.bffUrl, token: await tokenItem.getValue() });
      if (result.ok) setUsage(result.value);
      else setError(result.error);
    })();
  }, []);

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
    <main style={{ minWidth: '280px' }}>
      <h1>Redline</h1>
      {!usage && !error && <p class="muted">Connecting to {settings?.bffUrl ?? 'the BFF'}…</p>}
      {error && (
        <p class="error" role="alert" data-testid="connection">
          {error.message}
        </p>
      )}
      {usage && (
        <>
          <p class="ok" data-testid="connection">
            Connected as {usage.member.name} · {usage.mode === 'offline' ? 'offline analyzers' : 'analysis service'}
          </p>
          <table data-testid="usage">
            <tbody>
              {PRODUCTS.map((product) => {
                const figures = usage.products[product];
                return (
                  <tr key={product}>
                    <th scope="row" style={{ textAlign: 'left', paddingRight: '12px' }}>{PRODUCT_NAMES[product]}</th>
                    <td>{figures.remaining !== undefined ? `${figures.remaining.toLocaleString()} of ${figures.budget!.toLocaleString()} words left` : `${figures.wordsCharged.toLocaleString()} words used`}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
      {hostname && (
        <p class="row">
          <label style={{ margin: 0, fontWeight: 400 }}>
            <input type="checkbox" checked={!siteOff} onChange={() => void toggleSite()} /> On for {hostname}
          </label>
        </p>
      )}
      <p class="row">
        <button type="button" onClick={() => void openPanel()}>Open review panel</button>
        <button type="button" onClick={() => void browser.runtime.openOptionsPage()}>Options</button>
      </p>
    </main>
  );
}
