import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { OneTime, PRODUCTS, Status, useStatus, when, type Me, type Product } from './ui.tsx';

/** Runs a member action, shows its outcome on the page, then reloads the list. */
type Act = (action: () => Promise<string | void>) => Promise<void>;

function BudgetEditor({ member, act }: { member: any; act: Act }) {
  const [values, setValues] = useState<Record<Product, string>>(
    Object.fromEntries(PRODUCTS.map((product) => [product, member.products[product].budget?.toString() ?? ''])) as Record<Product, string>,
  );
  return (
    <form
      class="budgets"
      onSubmit={(event) => {
        event.preventDefault();
        void act(async () => {
          const body = Object.fromEntries(PRODUCTS.map((product) => [product, values[product] === '' ? null : Number(values[product])]));
          await api(`/members/${member.id}/budgets`, body);
          return `Budgets of ${member.name} saved.`;
        });
      }}
    >
      {PRODUCTS.map((product) => (
        <label key={product}>
          {product}
          <input
            type="number"
            min="0"
            placeholder="no limit"
            value={values[product]}
            aria-label={`${product} budget for ${member.name}`}
            onInput={(event) => setValues({ ...values, [product]: event.currentTarget.value })}
          />
        </label>
      ))}
      <button type="submit" aria-label={`Save budgets for ${member.name}`}>
        Save budgets
      </button>
    </form>
  );
}

function RateLimitEditor({ member, defaultLimit, windowSeconds, act }: { member: any; defaultLimit: number; windowSeconds: number; act: Act }) {
  const [value, setValue] = useState(member.rateLimit?.toString() ?? '');
  return (
    <form
      class="budgets"
      onSubmit={(event) => {
        event.preventDefault();
        void act(async () => {
          await api(`/members/${member.id}/rate-limit`, { requests: value === '' ? null : Number(value) });
          return `Rate limit of ${member.name} saved.`;
        });
      }}
    >
      <label>
        requests / {windowSeconds} s
        <input
          type="number"
          min="1"
          placeholder={`default ${defaultLimit}`}
          value={value}
          aria-label={`rate limit for ${member.name}`}
          onInput={(event) => setValue(event.currentTarget.value)}
        />
      </label>
      <button type="submit" aria-label={`Save rate limit for ${member.name}`}>
        Save limit
      </button>
    </form>
  );
}

/** Which of the BFF's resources a sign-in reaches: the MCP server (assistants) or the /v1 API (the extension). */
const reaches = (resource: string) => (new URL(resource).pathname.endsWith('/mcp') ? 'assistant (MCP)' : 'extension (API)');

/** A member's OAuth sign-ins, loaded when opened; each can be ended alone. */
function SignIns({ member, act }: { member: any; act: Act }) {
  const [signIns, setSignIns] = useState<any[] | null>(null);
  const load = async () => setSignIns((await api(`/members/${member.id}/sign-ins`)).signIns);
  const end = (signIn: any) =>
    act(async () => {
      if (!confirm(`End ${member.name}'s sign-in of ${signIn.clientName}? It stops working at once.`)) return;
      try {
        await api(`/members/${member.id}/sign-ins/${signIn.id}/revoke`, {});
      } finally {
        await load();
      }
      return `${member.name}'s sign-in of ${signIn.clientName} was ended.`;
    });
  return (
    <details class="sign-ins" onToggle={(event) => event.currentTarget.open && void act(load)}>
      <summary aria-label={`Sign-ins of ${member.name}`}>Sign-ins</summary>
      {signIns === null ? null : signIns.length === 0 ? (
        <p class="muted">No assistant or extension is signed in as {member.name}.</p>
      ) : (
        <ul>
          {signIns.map((signIn) => (
            <li key={signIn.id} data-sign-in={signIn.clientName}>
              {/* The client's own word (registration is open): isolated, so it cannot reorder the host after it. */}
              <bdi>{signIn.clientName}</bdi> <span class="muted">({reaches(signIn.resource)}, may {signIn.scopes.join(', ')}{signIn.redirectHost ? `, back to ${signIn.redirectHost}` : ''})</span>, since{' '}
              {when(signIn.createdAt)}, until {when(signIn.expiresAt)}{' '}
              <button type="button" aria-label={`End ${member.name}'s sign-in of ${signIn.clientName}`} onClick={() => void end(signIn)}>
                End
              </button>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}

export function Members({ me }: { me: Me }) {
  const [members, setMembers] = useState<any[]>([]);
  const [limits, setLimits] = useState({ defaultRateLimit: 0, rateWindowSeconds: 60 });
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const { status, fail, attempt } = useStatus();
  const load = () =>
    api('/members').then((answer) => {
      setMembers(answer.members);
      setLimits({ defaultRateLimit: answer.defaultRateLimit, rateWindowSeconds: answer.rateWindowSeconds });
    }, fail);
  useEffect(() => void load(), []);
  const act: Act = (action) => attempt(action).then(load);
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void act(async () => {
            const answer = await api('/members', { name });
            setSecret({ label: `Token for ${answer.member.name}`, value: answer.token });
            setName('');
            return `Member ${answer.member.name} added.`;
          });
        }}
      >
        <label for="new-member">New member's name</label>
        <input id="new-member" value={name} onInput={(event) => setName(event.currentTarget.value)} required maxLength={64} />
        <button type="submit">Add member</button>
      </form>
      {secret && <OneTime label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      <Status {...status} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            {PRODUCTS.map((product) => (
              <th scope="col" key={product}>
                {product} words (remaining)
              </th>
            ))}
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {members.map((member) => (
            <tr key={member.id} data-member={member.name} class={member.revokedAt ? 'revoked' : ''}>
              <th scope="row">
                {member.name}
                <span class="muted"> {member.tokenPrefix}</span>
              </th>
              <td>{member.revokedAt ? `revoked ${when(member.revokedAt)}` : member.role}</td>
              <td>{when(member.createdAt)}</td>
              <td>{when(member.lastUsedAt)}</td>
              {PRODUCTS.map((product) => (
                <td key={product}>
                  {member.products[product].wordsCharged}
                  {member.products[product].budget !== undefined && ` of ${member.products[product].budget} (${member.products[product].remaining} left)`}
                </td>
              ))}
              <td>
                {!member.revokedAt && (
                  <div class="actions">
                    <BudgetEditor member={member} act={act} />
                    <RateLimitEditor member={member} defaultLimit={limits.defaultRateLimit} windowSeconds={limits.rateWindowSeconds} act={act} />
                    <SignIns member={member} act={act} />
                    <button
                      type="button"
                      onClick={() =>
                        act(async () => {
                          const link = await api(`/members/${member.id}/link`, {});
                          setSecret({ label: `Sign-in link for ${member.name} (valid 24 hours, once)`, value: link.url });
                        })
                      }
                    >
                      Sign-in link
                    </button>
                    <button
                      type="button"
                      onClick={() =>
                        act(async () => {
                          const link = await api(`/members/${member.id}/extension-link`, {});
                          setSecret({ label: `Extension sign-in link for ${member.name} (valid 24 hours, once): paste it into the extension's options`, value: link.url });
                        })
                      }
                    >
                      Extension link
                    </button>
                    <button
                      type="button"
                      onClick={() =>
                        act(async () => {
                          if (!confirm(`Rotate ${member.name}'s token? The current one stops working at once.`)) return;
                          const answer = await api(`/members/${member.id}/rotate`, {});
                          setSecret({ label: `New token for ${member.name}`, value: answer.token });
                        })
                      }
                    >
                      Rotate token
                    </button>
                    {member.id !== me.id && (
                      <>
                        <button
                          type="button"
                          onClick={() => act(async () => void (await api(`/members/${member.id}/role`, { role: member.role === 'admin' ? 'member' : 'admin' })))}
                        >
                          {member.role === 'admin' ? 'Make member' : 'Make admin'}
                        </button>
                        <button
                          type="button"
                          class="danger"
                          onClick={() =>
                            act(async () => {
                              if (!confirm(`Revoke ${member.name}? Their token and sign-ins stop working at once.`)) return;
                              await api(`/members/${member.id}/revoke`, {});
                              return `${member.name} revoked.`;
                            })
                          }
                        >
                          Revoke
                        </button>
                      </>
                    )}
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

