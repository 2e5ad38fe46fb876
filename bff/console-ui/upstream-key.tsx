import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { Status, useStatus, when } from './ui.tsx';

const STATES: Record<string, string> = {
  prepared: 'prepared (not saved yet)',
  saved: 'saved, not active',
  active: 'active',
  previous: 'previous (was active)',
};

/**
 * The upstream key as the upstream manages it: paste (stored encrypted, masked from then on),
 * test with one cheap real request, mark saved, activate. The value is never shown again.
 */
export function UpstreamKey() {
  const [view, setView] = useState<any>(null);
  const [label, setLabel] = useState('');
  const [value, setValue] = useState('');
  const { status, fail, attempt } = useStatus();
  const load = () => api('/upstream-keys').then(setView, fail);
  useEffect(() => void load(), []);
  const act = (action: () => Promise<string | undefined>) => attempt(action).then(load);
  if (!view) return <Status {...status} />;
  return (
    <section aria-labelledby="key-heading">
      <h2 id="key-heading">Upstream key</h2>
      <p>
        {view.mode === 'offline'
          ? 'The BFF runs offline (no UPSTREAM_BASE_URL): keys can be stored but not tested or used.'
          : view.envKey
            ? `Environment key (UPSTREAM_API_KEY) ${view.envKey.masked}: ${view.envKey.inUse ? 'in use' : 'not used while a console key is active'}.`
            : 'No environment key (UPSTREAM_API_KEY) is set.'}{' '}
        {view.mode !== 'offline' && view.envKey && !view.envKey.inUse && (
          <button
            type="button"
            onClick={() =>
              act(async () => {
                const answer = await api('/upstream-keys/env/activate', {});
                return answer.inUse ? 'The key in UPSTREAM_API_KEY is in use again; the console key is now previous.' : 'The key in UPSTREAM_API_KEY is active but this instance has not picked it up yet.';
              })
            }
          >
            Use this key again
          </button>
        )}
      </p>
      {view.storing.enabled ? (
        <form
          aria-label="Add an upstream key"
          onSubmit={(event) => {
            event.preventDefault();
            void act(async () => {
              const answer = await api('/upstream-keys', { label, key: value });
              setLabel('');
              setValue('');
              return `Key "${answer.key.label}" stored encrypted as ${answer.key.masked}. It is not shown again. Test it next.`;
            });
          }}
        >
          <label for="key-label">Name</label>
          <input id="key-label" value={label} onInput={(event) => setLabel(event.currentTarget.value)} required maxLength={64} />
          <label for="key-value">New upstream key</label>
          <input id="key-value" type="password" autoComplete="off" spellcheck={false} value={value} onInput={(event) => setValue(event.currentTarget.value)} required />
          <button type="submit">Store key</button>
          <span class="hint">Prepare the key in the upstream's dashboard and paste it here. After storing, the console shows only its last four characters.</span>
        </form>
      ) : (
        <p class="status error" role="alert">
          {view.storing.reason}
        </p>
      )}
      <Status {...status} />
      <p class="hint">Before a test: {view.testNote}</p>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">State</th>
            <th scope="col">Test</th>
            <th scope="col">Added</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {view.keys.map((key: any) => (
            <tr key={key.id} data-key={key.label}>
              <th scope="row">{key.label}</th>
              <td>
                <code>{key.masked}</code>
              </td>
              <td>
                {STATES[key.state]}
                {key.inUse && ' · in use'}
                {key.sharesActiveAccount && ' · same account as the active key'}
                {key.pendingOperations > 0 && ` · ${key.pendingOperations} operation(s) still running with it`}
              </td>
              <td>{key.test ? `${key.test.ok ? 'passed' : 'failed'} ${when(key.test.at)}: ${key.test.summary}` : 'not tested'}</td>
              <td>{when(key.createdAt)}</td>
              <td>
                <div class="actions">
                  {key.state !== 'active' && (
                    <button
                      type="button"
                      aria-label={`Test ${key.label}`}
                      onClick={() =>
                        act(async () => {
                          if (!confirm(`${view.testNote}\n\nRun the test?`)) return undefined;
                          const answer = await api(`/upstream-keys/${key.id}/test`, {});
                          return `Test of "${key.label}": ${answer.test.summary}`;
                        })
                      }
                    >
                      Test
                    </button>
                  )}
                  {key.state === 'prepared' && (
                    <button
                      type="button"
                      aria-label={`Mark ${key.label} saved`}
                      onClick={() =>
                        act(async () => {
                          if (!confirm(`Is "${key.label}" kept in your secret store? The console never shows it again.`)) return undefined;
                          await api(`/upstream-keys/${key.id}/saved`, {});
                          return `"${key.label}" marked saved.`;
                        })
                      }
                    >
                      Mark saved
                    </button>
                  )}
                  {(key.state === 'saved' || key.state === 'previous') && (
                    <button
                      type="button"
                      aria-label={`Activate ${key.label}`}
                      onClick={() =>
                        act(async () => {
                          const answer = await api(`/upstream-keys/${key.id}/activate`, {});
                          return answer.inUse ? `"${key.label}" is active: new checks use it from now on.` : `"${key.label}" is active but this instance has not picked it up yet.`;
                        })
                      }
                    >
                      Activate
                    </button>
                  )}
                  {key.state !== 'active' && (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Remove ${key.label}`}
                      onClick={() =>
                        act(async () => {
                          if (!confirm(`Remove "${key.label}"? Its encrypted value is deleted.`)) return undefined;
                          await api(`/upstream-keys/${key.id}/remove`, {});
                          return `"${key.label}" removed.`;
                        })
                      }
                    >
                      Remove
                    </button>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">
        New checks use the active key from the moment it is activated. Checks already running finish with the key they started with, or move to the new key when a test showed both
        belong to one upstream account (the upstream keeps its idempotency records per account). A previous key stays listed until removed.
      </p>
    </section>
  );
}
