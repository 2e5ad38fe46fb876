import { useEffect, useState } from 'preact/hooks';
import { DETECTOR_VERSIONS, HUMANIZER_MODELS, type DetectorVersion, type HumanizerModel } from '@redline/shared';
import { checkOriginAllowed, getUsage } from '../lib/bff-client.ts';
import { getSettings, tokenItem, updateSettings, type Settings } from '../lib/settings.ts';

type TestResult = { ok: true; text: string } | { ok: false; text: string };

function validUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

export function Options() {
  const [settings, setSettings] = useState<Settings>();
  const [token, setToken] = useState('');
  const [saved, setSaved] = useState<string>();
  const [test, setTest] = useState<TestResult>();
  const origin = location.origin;

  useEffect(() => {
    void getSettings().then(setSettings);
    void tokenItem.getValue().then(setToken);
  }, []);
  if (!settings) return null;

  const patch = (change: Partial<Settings>) => {
    setSettings({ ...settings, ...change });
    setSaved(undefined);
  };
  const urlError = validUrl(settings.bffUrl) ? undefined : 'Enter the BFF address, such as http://127.0.0.1:8787.';
  const tokenError = token && !/^rl_[A-Za-z0-9_-]{43}$/.test(token.trim()) ? 'A member token looks like rl_ followed by 43 letters, digits, "-" or "_".' : undefined;

  const save = async (event: Event) => {
    event.preventDefault();
    if (urlError || tokenError) return;
    await updateSettings({ ...settings, bffUrl: settings.bffUrl.replace(/\/+$/, '') });
    await tokenItem.setValue(token.trim());
    setSaved('Saved.');
  };

  const testConnection = async () => {
    setTest(undefined);
    const connection = { url: settings.bffUrl, token: token.trim() };
    const result = await getUsage(connection);
    if (!result.ok) return setTest({ ok: false, text: result.error.message });
    const post = await checkOriginAllowed(connection);
    if (!post.ok) return setTest({ ok: false, text: post.error.message });
    setTest({ ok: true, text: `Connected as ${result.value.member.name} (${result.value.mode === 'offline' ? 'offline analyzers' : 'analysis service'}).` });
  };

  return (
    <main style={{ maxWidth: '560px' }}>
      <h1>Redline options</h1>
      <form onSubmit={(event) => void save(event)}>
        <label for="bff-url">BFF address</label>
        <input id="bff-url" type="url" value={settings.bffUrl} onInput={(event) => patch({ bffUrl: event.currentTarget.value })} aria-invalid={!!urlError} />
        {urlError && <p class="error">{urlError}</p>}

        <label for="token">Member token</label>
        <input id="token" type="password" autocomplete="off" value={token} onInput={(event) => (setToken(event.currentTarget.value), setSaved(undefined))} aria-invalid={!!tokenError} />
        {tokenError && <p class="error">{tokenError}</p>}
        <p class="muted">
          Your administrator creates it with <code>npm run members -- add NAME</code>. The BFF must allow this extension's origin: start it with{' '}
          <code data-testid="origin">BFF_ALLOWED_ORIGINS={origin}</code> (comma-separated after any origins it already allows).
          {origin.startsWith('moz-extension:') && (
            <span data-testid="origin-note">
              {' '}
              Firefox picks this origin for each profile, and installing the add-on again (as a temporary add-on is after every restart) can change it: look here again after that.
            </span>
          )}
        </p>
        <p class="row">
          <button type="button" onClick={() => void testConnection()}>Test connection</button>
          {test && (
            <span class={test.ok ? 'ok' : 'error'} role="status" data-testid="test-result">
              {test.text}
            </span>
          )}
        </p>

        <label for="version">Detector version</label>
        <select id="version" value={settings.defaultVersion} onChange={(event) => patch({ defaultVersion: event.currentTarget.value as DetectorVersion })}>
          {DETECTOR_VERSIONS.map((version) => (
            <option key={version} value={version}>{version === 'v3' ? 'v3 (recommended)' : version}</option>
          ))}
        </select>

        <label for="model">Humanizer model</label>
        <select id="model" value={settings.defaultModel} onChange={(event) => patch({ defaultModel: event.currentTarget.value as HumanizerModel })}>
          {HUMANIZER_MODELS.map((model) => (
            <option key={model} value={model}>{model}</option>
          ))}
        </select>

        <label for="confirm">Ask before sending more than this many words</label>
        <input id="confirm" type="number" min={0} step={100} value={settings.confirmAboveWords} onInput={(event) => patch({ confirmAboveWords: Math.max(0, Number(event.currentTarget.value) || 0) })} />

        <label for="terms">Keep these terms (one per line): rewrites that change them are flagged</label>
        <textarea id="terms" rows={4} value={settings.keepTerms.join('\n')} onInput={(event) => patch({ keepTerms: event.currentTarget.value.split('\n').map((term) => term.trim()).filter(Boolean) })} />

        <h2>Sites where Redline is off</h2>
        {settings.disabledSites.length === 0 ? (
          <p class="muted">None. Turn Redline off for a site from the toolbar popup.</p>
        ) : (
          <ul>
            {settings.disabledSites.map((site) => (
              <li key={site} class="row">
                {site}
                <button type="button" onClick={() => patch({ disabledSites: settings.disabledSites.filter((other) => other !== site) })}>Turn on</button>
              </li>
            ))}
          </ul>
        )}

        <p class="row">
          <button type="submit" class="primary" disabled={!!urlError || !!tokenError}>Save</button>
          {saved && <span class="ok" role="status">{saved}</span>}
        </p>
      </form>
    </main>
  );
}
