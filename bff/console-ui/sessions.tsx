import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { Status, useStatus, when } from './ui.tsx';

export function Sessions() {
  const [sessions, setSessions] = useState<any[]>([]);
  const { status, fail, attempt } = useStatus();
  const load = () => api('/sessions').then((answer) => setSessions(answer.sessions), fail);
  useEffect(() => void load(), []);
  // Reloaded after a failure too: a session that ended meanwhile leaves the list.
  const revoke = (session: any) =>
    attempt(async () => {
      await api(`/sessions/${session.id}/revoke`, {});
      return `The session of ${session.memberName} was ended.`;
    }).then(load);
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Console sessions</h2>
      <Status {...status} />
      <table>
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Signed in</th>
            <th scope="col">Last seen</th>
            <th scope="col">Address</th>
            <th scope="col">Browser</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <tr key={session.id}>
              <th scope="row">{session.memberName}</th>
              <td>{when(session.createdAt)}</td>
              <td>{when(session.lastSeenAt)}</td>
              <td>{session.address}</td>
              <td>{session.userAgent}</td>
              <td>
                {session.current ? (
                  'this session'
                ) : (
                  <button type="button" onClick={() => void revoke(session)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

