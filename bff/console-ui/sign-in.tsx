import { useState } from 'preact/hooks';
import { api, setCsrfToken } from './api.ts';
import { message, Status, type Me } from './ui.tsx';

export function SignIn({ onSignedIn, status }: { onSignedIn: (me: Me) => void; status: string }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState(status);
  return (
    <main>
      <h1>Redline console</h1>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            const answer = await api('/sign-in', { token });
            setCsrfToken(answer.csrfToken);
            setToken('');
            onSignedIn(answer.member);
          } catch (failure) {
            setError(message(failure));
          }
        }}
      >
        <label for="token">Member token</label>
        <input id="token" type="password" autoComplete="off" value={token} onInput={(event) => setToken(event.currentTarget.value)} required />
        <button type="submit">Sign in</button>
        <p class="hint">Paste your token once; the console then keeps a session cookie. Or open a sign-in link from an administrator.</p>
      </form>
      <Status text={error} kind="error" />
    </main>
  );
}

