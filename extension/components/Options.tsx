import { useEffect, useState } from 'preact/hooks';
import { signInItem, signInWithLink, signInWithServer, signOut, type SignedIn } from '../lib/account.ts';
import { checkOriginAllowed, getUsage } from '../lib/bff-client.ts';
import { serverAddressProblem } from '../lib/server-address.ts';
import { getSettings, tokenItem, updateSettings, type Settings } from '../lib/settings.ts';

type Note = { ok: boolean; text: string };

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The extension's options, for people: signing in first, everyday choices next, the technical settings under Advanced. */
export function Options() {
  const [settings, setSettings] = useState<Settings>();
  const [signedIn, setSignedIn] = useState<SignedIn | null>(null);
  const [token, setToken] = useState('');

  const reload = async () => {
    const [nextSettings, nextSignedIn, nextToken] = await Promise.all([getSettings(), signInItem.getValue(), tokenItem.getValue()]);
    setSettings(nextSettings);
    setSignedIn(nextSignedIn);
    setToken(nextToken);
  };
  useEffect(() => {
    void reload();
    // The background may end a sign-in (a refused renewal); show it.
    return signInItem.watch((value) => setSignedIn(value));
  }, []);
  if (!settings) return null;

  return (
    <main style={{ maxWidth: '560px' }}>
      <h1>Redline settings</h1>
      <Account settings={settings} signedIn={signedIn} token={token} onChange={reload} />
      <Checks settings={settings} onSaved={setSettings} />
      <Advanced key={`${settings.bffUrl} ${token}`} settings={settings} token={token} signedIn={signedIn} onChange={reload} />
    </main>
  );
}

function Account({ settings, signedIn, token, onChange }: { settings: Settings; signedIn: SignedIn | null; token: string; onChange: () => Promise<void> }) {
  const [link, setLink] = useState('');
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<Note>();

  const run = async (action: () => Promise<string>) => {
    setBusy(true);
    setNote(undefined);
    try {
      setNote({ ok: true, text: await action() });
      await onChange();
    } catch (error) {
      setNote({ ok: false, text: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">Your team's Redline server</h2>
      {signedIn ? (
        <>
          <p data-testid="account">
            Signed in as <strong>{signedIn.memberName || 'a team member'}</strong> at {hostOf(signedIn.server)}.
          </p>
          <p class="row">
            <button type="button" disabled={busy} onClick={() => void run(async () => ((await signOut()).revokedOnServer ? 'Signed out.' : 'Signed out here; the server could not be told, so ask your administrator to end the sign-in if needed.'))}>
              Sign out
            </button>
          </p>
        </>
      ) : (
        <>
          <p data-testid="account">
            {token ? `Using ${hostOf(settings.bffUrl)} with a member token (see Advanced, where it can be checked).` : 'Not signed in. Checks go through your team\'s Redline server, so sign in first.'}
          </p>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void run(async () => {
                const account = await signInWithLink(link);
                setLink('');
                return `Signed in as ${account.memberName}.`;
              });
            }}
          >
            <label for="sign-in-link">Sign-in link or code</label>
            <input id="sign-in-link" type="text" autocomplete="off" spellcheck={false} value={link} onInput={(event) => setLink(event.currentTarget.value)} placeholder="https://…/connect#code=…" />
            <p class="muted">Your administrator makes one for you in the team console. It works once, within 24 hours.</p>
            <p class="row">
              <button type="submit" class="primary" disabled={busy || !link.trim()}>Sign in</button>
            </p>
          </form>
          <p class="row">
            <button type="button" disabled={busy} onClick={() => void run(async () => `Signed in as ${(await signInWithServer(settings.bffUrl)).memberName}.`)}>
              Sign in with your team's server
            </button>
          </p>
          <p class="muted">Opens {hostOf(settings.bffUrl)} in a window where you sign in and approve Redline. Another server? Change its address under Advanced.</p>
        </>
      )}
      {note && (
        <p class={note.ok ? 'ok' : 'error'} role={note.ok ? 'status' : 'alert'} data-testid="account-note">
          {note.text}
        </p>
      )}
    </section>
  );
}

function Checks({ settings, onSaved }: { settings: Settings; onSaved: (settings: Settings) => void }) {
  const [draft, setDraft] = useState(settings);
  const [saved, setSaved] = useState(false);
  const patch = (change: Partial<Settings>) => {
    setDraft({ ...draft, ...change });
    setSaved(false);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const { confirmAboveWords, keepTerms, disabledSites } = draft;
    onSaved(await updateSettings({ confirmAboveWords, keepTerms, disabledSites }));
    setSaved(true);
  };

  return (
    <form onSubmit={(event) => void save(event)} aria-labelledby="checks-heading">
      <h2 id="checks-heading">Checks</h2>
      <label for="confirm">Ask me before sending a text longer than this many words</label>
      <input id="confirm" type="number" min={0} step={100} value={draft.confirmAboveWords} onInput={(event) => patch({ confirmAboveWords: Math.max(0, Number(event.currentTarget.value) || 0) })} />
      <p class="muted">Checks are charged by the word to your team. 0 means always ask.</p>

      <label for="terms">Words a rewrite must keep (one per line)</label>
      <textarea id="terms" rows={4} value={draft.keepTerms.join('\n')} onInput={(event) => patch({ keepTerms: event.currentTarget.value.split('\n').map((term) => term.trim()).filter(Boolean) })} />
      <p class="muted">Names, product terms, quotations: a suggested rewrite that changes them is flagged for you.</p>

      <h2>Sites where Redline is off</h2>
      {draft.disabledSites.length === 0 ? (
        <p class="muted">None. Turn Redline off for a site from the toolbar button.</p>
      ) : (
        <ul>
          {draft.disabledSites.map((site) => (
            <li key={site} class="row">
              {site}
              <button type="button" onClick={() => patch({ disabledSites: draft.disabledSites.filter((other) => other !== site) })}>Turn on</button>
            </li>
          ))}
        </ul>
      )}
      <p class="row">
        <button type="submit" class="primary">Save</button>
        {saved && <span class="ok" role="status">Saved.</span>}
      </p>
    </form>
  );
}

function Advanced({ settings, token: storedToken, signedIn, onChange }: { settings: Settings; token: string; signedIn: SignedIn | null; onChange: () => Promise<void> }) {
  const [url, setUrl] = useState(settings.bffUrl);
  const [token, setToken] = useState(storedToken);
  const [note, setNote] = useState<Note>();
  const [test, setTest] = useState<Note>();
  /** Asking the server, which may take a few seconds when it does not answer (lost answers are asked for again). */
  const [asking, setAsking] = useState<'save' | 'test'>();
  const origin = location.origin;
  const urlError = serverAddressProblem(url);
  const tokenError = token && !/^rl_[A-Za-z0-9_-]{43}$/.test(token.trim()) ? 'A member token looks like rl_ followed by 43 letters, digits, "-" or "_".' : undefined;

  const save = async (event: Event) => {
    event.preventDefault();
    if (urlError || tokenError || asking) return;
    setAsking('save');
    try {
      await saveSettings();
    } finally {
      setAsking(undefined);
    }
  };

  const saveSettings = async () => {
    const address = url.trim().replace(/\/+$/, '');
    // A token the server refuses is not kept: the page would say it is connected with it. An
    // unreachable server does not stop the save (it may not be up yet), and the note says so.
    let unverified: string | undefined;
    if (token.trim()) {
      const check = await getUsage({ url: address, token: token.trim() });
      if (!check.ok && check.error.status === 401) return setNote({ ok: false, text: `Not saved: ${check.error.message}` });
      if (!check.ok) unverified = check.error.message;
    }
    // A grant belongs to its server, and a pasted token replaces a sign-in: one way in at a time.
    if (signedIn && (token.trim() || address !== signedIn.server)) await signOut();
    await updateSettings({ bffUrl: address });
    await tokenItem.setValue(token.trim());
    setNote(unverified ? { ok: false, text: `Saved, but not verified: ${unverified}` } : { ok: true, text: 'Saved.' });
    await onChange();
  };

  const testConnection = async () => {
    setTest(undefined);
    setAsking('test');
    try {
      setTest(await connectionTest());
    } finally {
      setAsking(undefined);
    }
  };

  const connectionTest = async (): Promise<Note> => {
    const connection = { url: url.trim().replace(/\/+$/, ''), token: token.trim() || (signedIn?.accessToken ?? '') };
    const result = await getUsage(connection);
    if (!result.ok) return { ok: false, text: result.error.message };
    const post = await checkOriginAllowed(connection);
    if (!post.ok) return { ok: false, text: post.error.message };
    return { ok: true, text: `Connected as ${result.value.member.name} (${result.value.mode === 'offline' ? 'offline analyzers' : 'analysis service'}).` };
  };

  return (
    <details>
      <summary>Advanced</summary>
      <form onSubmit={(event) => void save(event)}>
        <label for="bff-url">Server address</label>
        <input id="bff-url" type="url" value={url} onInput={(event) => (setUrl(event.currentTarget.value), setNote(undefined))} aria-invalid={!!urlError} aria-describedby={urlError ? 'bff-url-error' : undefined} />
        {urlError && <p class="error" id="bff-url-error">{urlError}</p>}

        <label for="token">Member token</label>
        <input id="token" type="password" autocomplete="off" value={token} onInput={(event) => (setToken(event.currentTarget.value), setNote(undefined))} aria-invalid={!!tokenError} aria-describedby={tokenError ? 'token-error' : undefined} />
        {tokenError && <p class="error" id="token-error">{tokenError}</p>}
        <p class="muted">
          Instead of signing in: a token made with <code>npm run members -- add NAME</code> or in the console. The server must allow this extension: its{' '}
          <code data-testid="origin">BFF_ALLOWED_ORIGINS={origin}</code> (comma-separated after any origins it already allows).
          {origin.startsWith('moz-extension:') && (
            <span data-testid="origin-note">
              {' '}
              Firefox picks this origin for each profile, and installing the add-on again (as a temporary add-on is after every restart) can change it: look here again after that.
            </span>
          )}
        </p>
        <p class="row">
          <button type="button" disabled={!!urlError || !!asking} onClick={() => void testConnection()}>
            Test connection
          </button>
          {asking === 'test' && (
            <span class="muted" role="status">
              Asking the server…
            </span>
          )}
          {test && (
            <span class={test.ok ? 'ok' : 'error'} role="status" data-testid="test-result">
              {test.text}
            </span>
          )}
        </p>
        <p class="row">
          <button type="submit" disabled={!!urlError || !!tokenError || !!asking}>Save</button>
          {asking === 'save' && (
            <span class="muted" role="status">
              Asking the server…
            </span>
          )}
          {note && <span class={note.ok ? 'ok' : 'error'} role="status">{note.text}</span>}
        </p>
      </form>
    </details>
  );
}
