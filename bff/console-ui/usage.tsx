import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { UsageChart } from './chart.tsx';
import { PRODUCTS, Status, useStatus, when } from './ui.tsx';

const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

export function Usage() {
  const [from, setFrom] = useState(isoDay(Date.now() - 29 * 86_400_000));
  const [to, setTo] = useState(isoDay(Date.now()));
  const [report, setReport] = useState<any>(null);
  const { status, clear, fail } = useStatus();
  const load = () => api(`/usage?from=${from}&to=${to}`).then(setReport, fail);
  useEffect(() => void load(), []);
  return (
    <section aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          clear();
          void load();
        }}
      >
        <label for="from">From</label>
        <input id="from" type="date" value={from} onInput={(event) => setFrom(event.currentTarget.value)} />
        <label for="to">To</label>
        <input id="to" type="date" value={to} onInput={(event) => setTo(event.currentTarget.value)} />
        <button type="submit">Show</button>
        <a href={`/console/api/usage.csv?from=${from}&to=${to}`} download>
          Download CSV
        </a>
      </form>
      <Status {...status} />
      {report && (
        <>
          <h3>Upstream words remaining</h3>
          {report.upstreamQuotas.length === 0 ? (
            <p class="hint">The upstream has not reported its remaining words yet (it does so when a check is refused for lack of words).</p>
          ) : (
            <table aria-label="Upstream words remaining">
              <thead>
                <tr>
                  <th scope="col">Product</th>
                  <th scope="col">Words remaining (last reported)</th>
                  <th scope="col">Seen</th>
                </tr>
              </thead>
              <tbody>
                {report.upstreamQuotas.map((quota: any) => (
                  <tr key={quota.product}>
                    <th scope="row">{quota.product}</th>
                    <td>{quota.remainingWords}</td>
                    <td>{when(quota.seenAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {report.heldOperations?.length > 0 && <HeldOperations held={report.heldOperations} />}
          <h3>Per day ({report.from} to {report.to})</h3>
          <UsageChart days={report.days} />
          <h3>Per member</h3>
          <table aria-label="Words per member">
            <thead>
              <tr>
                <th scope="col">Member</th>
                {PRODUCTS.map((product) => (
                  <th scope="col" key={product}>
                    {product} words (budget left)
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {report.members.map((member: any) => (
                <tr key={member.id}>
                  <th scope="row">{member.name}</th>
                  {PRODUCTS.map((product) => (
                    <td key={product}>
                      {member.words[product]}
                      {member.remaining[product] !== undefined && ` (${member.remaining[product]} left)`}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Per day</h3>
          <table aria-label="Words per day">
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                {PRODUCTS.map((product) => (
                  <th scope="col" key={product}>
                    {product} words
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {report.days
                .filter((day: any) => PRODUCTS.some((product) => day.words[product] > 0))
                .map((day: any) => (
                  <tr key={day.day}>
                    <th scope="row">{day.day}</th>
                    {PRODUCTS.map((product) => (
                      <td key={product}>{day.words[product]}</td>
                    ))}
                  </tr>
                ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}


/**
 * Operations that may have been charged upstream whose answer the upstream key or address now
 * refuses to give: they wait, their words reserved, until the key in use can fetch them.
 */
function HeldOperations({ held }: { held: any[] }) {
  return (
    <>
      <h3>Held checks</h3>
      <p class="hint" role="status">
        {held.length === 1 ? 'One check' : `${held.length} checks`} may have been charged upstream, but the upstream refused to give the answer (the key or
        address changed since). Each stays pending and its words stay reserved: fix the upstream key (the <em>Upstream key</em> page) or{' '}
        <code>UPSTREAM_BASE_URL</code>, and each is fetched and counted once at its next try, when the BFF restarts, or when its member repeats it.
      </p>
      <table aria-label="Held checks">
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Product</th>
            <th scope="col">Refused with</th>
            <th scope="col">Tries so far</th>
            <th scope="col">Next try</th>
            <th scope="col">Operation id</th>
          </tr>
        </thead>
        <tbody>
          {held.map((operation) => (
            <tr key={`${operation.memberId}/${operation.operationId}`} data-held={operation.operationId}>
              <th scope="row">{operation.memberName}</th>
              <td>{operation.product}</td>
              <td>
                <code>{operation.code}</code>
              </td>
              <td>{operation.heldResumes}</td>
              <td>{when(operation.resumeAfter)}</td>
              <td>
                <code>{operation.operationId}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
