import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { Status, useStatus, when } from './ui.tsx';

export function Audit() {
  const [entries, setEntries] = useState<any[]>([]);
  const { status, fail } = useStatus();
  useEffect(() => void api('/audit').then((answer) => setEntries(answer.entries), fail), []);
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      <Status {...status} />
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry, index) => (
            <tr key={index}>
              <td>{when(entry.at)}</td>
              <td>{entry.actorName ?? '—'}</td>
              <th scope="row">{entry.action}</th>
              <td>{entry.target ?? '—'}</td>
              <td>{Object.keys(entry.detail).length ? JSON.stringify(entry.detail) : ''}</td>
              <td>{entry.address}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

