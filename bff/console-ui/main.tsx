import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, setCsrfToken } from './api.ts';
import { Audit } from './audit.tsx';
import { Members } from './members.tsx';
import { MyUsage } from './my-usage.tsx';
import { Sessions } from './sessions.tsx';
import { SignIn } from './sign-in.tsx';
import { message, type Me } from './ui.tsx';
import { UpstreamKey } from './upstream-key.tsx';
import { Usage } from './usage.tsx';

const PAGES = { members: 'Members', usage: 'Usage', keys: 'Upstream key', sessions: 'Sessions', audit: 'Audit log' } as const;
type Page = keyof typeof PAGES;

/** What to tell after a failed call: nothing for a 401, which only means there is no session (any more). */
const unlessSignedOut = (failure: unknown) => (failure instanceof ApiError && failure.status === 401 ? '' : message(failure));

function Console({ me, onSignOut }: { me: Me; onSignOut: (status: string) => void }) {
  const [page, setPage] = useState<Page>('members');
  return (
    <>
      <header>
        <h1>Redline console</h1>
        <span>
          Signed in as <strong>{me.name}</strong> ({me.role})
        </span>
        <button type="button" onClick={() => api('/sign-out', {}).then(() => onSignOut(''), (failure) => onSignOut(unlessSignedOut(failure)))}>
          Sign out
        </button>
      </header>
      {me.role === 'admin' ? (
        <>
          <nav aria-label="Console pages">
            {(Object.keys(PAGES) as Page[]).map((key) => (
              <button type="button" key={key} aria-current={page === key ? 'page' : undefined} onClick={() => setPage(key)}>
                {PAGES[key]}
              </button>
            ))}
          </nav>
          <main>
            {page === 'members' && <Members me={me} />}
            {page === 'usage' && <Usage />}
            {page === 'keys' && <UpstreamKey />}
            {page === 'sessions' && <Sessions />}
            {page === 'audit' && <Audit />}
          </main>
        </>
      ) : (
        <main>
          <p>You are signed in as a member. Only administrators manage the team here.</p>
          <MyUsage />
        </main>
      )}
    </>
  );
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [status, setStatus] = useState('');
  useEffect(() => {
    const code = new URLSearchParams(location.hash.slice(1)).get('link');
    // The link's code is used once; take it out of the address bar and history at once.
    if (code) history.replaceState(null, '', location.pathname);
    const start = code
      ? api('/sign-in/link', { code }).catch((failure) => {
          setStatus(message(failure));
          return null;
        })
      : api('/session').catch((failure) => {
          setStatus(unlessSignedOut(failure));
          return null;
        });
    void start.then((answer) => {
      if (answer) setCsrfToken(answer.csrfToken);
      setMe(answer?.member ?? null);
    });
  }, []);
  if (me === undefined) return <p>Loading…</p>;
  if (me === null) return <SignIn onSignedIn={setMe} status={status} />;
  return (
    <Console
      me={me}
      onSignOut={(text) => {
        setStatus(text);
        setMe(null);
      }}
    />
  );
}

render(<App />, document.getElementById('app')!);
