import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { OneTime, PRODUCTS, Status, useStatus } from './ui.tsx';

/** A member's own words per product and what is left of each budget. */
export function MyUsage() {
  const [products, setProducts] = useState<any>(null);
  const { status, fail } = useStatus();
  const [link, setLink] = useState<string | null>(null);
  useEffect(() => void api('/me/usage').then((answer) => setProducts(answer.products), fail), []);
  return (
    <section aria-labelledby="my-usage-heading">
      <h2 id="my-usage-heading">Your usage</h2>
      <Status {...status} />
      <p>
        <button type="button" onClick={() => void api('/me/extension-link', {}).then((answer) => setLink(answer.url), fail)}>
          Sign-in link for my browser extension
        </button>
      </p>
      {link && <OneTime label="Your extension sign-in link (valid 24 hours, once): paste it into the Redline extension's options" value={link} onDone={() => setLink(null)} />}
      {products && (
        <table>
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col">Words charged</th>
              <th scope="col">Budget</th>
              <th scope="col">Left</th>
            </tr>
          </thead>
          <tbody>
            {PRODUCTS.map((product) => (
              <tr key={product}>
                <th scope="row">{product}</th>
                <td>{products[product].wordsCharged}</td>
                <td>{products[product].budget ?? 'no limit'}</td>
                <td>{products[product].remaining ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
