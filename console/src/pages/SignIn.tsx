/** Sign-in with an account's API key or the administration token. */
import { type FormEvent, useState } from 'react';
import { useSession } from '../session.tsx';
import { ErrorScope, Field, FormErrors } from '../components/forms.tsx';
import { PageTitle } from '../components/common.tsx';

export function SignIn() {
  const { signIn } = useSession();
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(token);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="sign-in">
      <PageTitle>Sign in to the console</PageTitle>
      <p>
        Use an account's API key (<code>wps_…</code>) to work on that account, or the administration token to manage accounts, API keys and wallet credentials.
      </p>
      <form onSubmit={submit} className="card">
        <ErrorScope error={error}>
          <FormErrors error={error} shown={['/token']} />
          <Field
            label="API key or administration token"
            pointer="/token"
            type="password"
            autoComplete="off"
            required
            value={token}
            onChange={(e) => setToken(e.target.value)}
            hint="Kept in this tab only (session storage) and forgotten when you sign out or close it."
          />
          <button type="submit" disabled={busy || !token.trim()}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </ErrorScope>
      </form>
    </main>
  );
}
