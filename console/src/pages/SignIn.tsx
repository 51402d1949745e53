/**
 * Signing in to the console, in the order a person should prefer: a passkey
 * (signInWithPasskey), an e-mail address and password with the authenticator app's code when the
 * person has one (signInWithPassword: the `401` whose detail names `totpCode` asks for it), the
 * company's single sign-on (startSingleSignOn, `/api/v1/sign-in/oidc?account=<id>`; with
 * `?account=<id>` in the console's address, a link straight to it), and last, for the operator, the
 * administration token. Each failure is shown at its field.
 */
import { type FormEvent, type ReactNode, useState } from 'react';
import { api, ApiError, ok } from '../api.ts';
import { signInWithPasskey } from '../passkeys.ts';
import { useSession } from '../session.tsx';
import { ErrorScope, Field, FormErrors } from '../components/forms.tsx';
import { PageTitle } from '../components/common.tsx';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Runs `action`, keeping its failure for the form (a failure naming no field is shown at `pointer`). */
function useAction(pointer: string) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      // A refusal without a field (sign_in_failed) belongs to the form's main field.
      setError(
        e instanceof ApiError
          ? new ApiError(
              e.status,
              e.errors.map((o) => (o.source ? o : { ...o, source: { pointer } })),
            )
          : e,
      );
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

function Passkey() {
  const { signedIn } = useSession();
  const { error, busy, run } = useAction('/credential');
  const message = error instanceof ApiError ? error.at('/credential') : undefined;
  return (
    <Section id="sign-in-passkey" title="Passkey">
      <p>Your device unlocks it with your fingerprint, face or PIN; nothing to type and nothing to steal.</p>
      <button
        type="button"
        disabled={busy}
        aria-describedby={message ? 'passkey-error' : undefined}
        onClick={() => run(async () => signedIn(await signInWithPasskey()))}
      >
        {busy ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
      </button>
      {message && (
        <p className="field-error" id="passkey-error" role="alert">
          {message}
        </p>
      )}
      {!message && <FormErrors error={error} />}
    </Section>
  );
}

function Password() {
  const { signedIn } = useSession();
  const [form, setForm] = useState({ email: '', password: '', totpCode: '' });
  const [askCode, setAskCode] = useState(false);
  const { error, busy, run } = useAction('/password');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const res = await api.POST('/api/v1/sign-in/password', {
        body: { email: form.email.trim(), password: form.password, ...(askCode && form.totpCode && { totpCode: form.totpCode.trim() }) },
      });
      if (res.data) return signedIn(res.data);
      const errors = (res.error as { errors?: { detail?: string; source?: unknown }[] } | undefined)?.errors ?? [];
      if (res.response.status === 401 && errors.some((e) => e.detail?.includes('totpCode'))) {
        setAskCode(true);
        if (!form.totpCode) throw new ApiError(401, [{ detail: 'Enter the 6-digit code your authenticator app shows.', source: { pointer: '/totpCode' } }]);
      }
      // With the code asked, a refusal may be the code's: said there, as the server says it (it does not tell which was wrong).
      if (askCode && res.response.status === 401 && errors[0]?.detail)
        throw new ApiError(401, [{ detail: errors[0].detail, source: { pointer: '/totpCode' } }]);
      await ok(Promise.resolve(res));
    });
  };
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <Section id="sign-in-password" title="E-mail and password">
      <form onSubmit={submit}>
        <ErrorScope error={error}>
          <FormErrors error={error} shown={['/email', '/password', '/totpCode']} />
          <Field label="E-mail address" pointer="/email" type="email" autoComplete="username" required value={form.email} onChange={set('email')} />
          <Field
            label="Password"
            pointer="/password"
            type="password"
            autoComplete="current-password"
            required
            value={form.password}
            onChange={set('password')}
          />
          {askCode && (
            <Field
              label="Code from your authenticator app"
              pointer="/totpCode"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              required
              value={form.totpCode}
              onChange={set('totpCode')}
            />
          )}
          <button type="submit" className="secondary" disabled={busy || !form.email || !form.password}>
            {busy ? 'Signing in…' : 'Sign in with password'}
          </button>
        </ErrorScope>
      </form>
    </Section>
  );
}

/** The sign-in URL of an account's single sign-on (startSingleSignOn). */
const ssoUrl = (accountId: string) => `/api/v1/sign-in/oidc?account=${encodeURIComponent(accountId)}`;

function SingleSignOn() {
  const linked = new URLSearchParams(window.location.search).get('account');
  const [accountId, setAccountId] = useState('');
  const { error, busy, run } = useAction('/account');
  if (linked && UUID.test(linked))
    return (
      <Section id="sign-in-sso" title="Company account">
        <a className="button secondary" href={ssoUrl(linked)}>
          Sign in with your company account
        </a>
      </Section>
    );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const id = accountId.trim();
      if (!UUID.test(id))
        throw new ApiError(400, [{ detail: 'An account id looks like 0194f3c2-…: ask your administrator for it.', source: { pointer: '/account' } }]);
      // Asked first without following the redirect: an account without single sign-on is shown here, not as a JSON page.
      const res = await fetch(ssoUrl(id), { redirect: 'manual', credentials: 'same-origin' });
      if (res.type !== 'opaqueredirect' && !res.ok)
        throw new ApiError(res.status, [
          { detail: res.status === 404 ? 'This account has no single sign-on.' : `The service answered HTTP ${res.status}.`, source: { pointer: '/account' } },
        ]);
      window.location.assign(ssoUrl(id));
    });
  };
  return (
    <Section id="sign-in-sso" title="Company account">
      <form onSubmit={submit}>
        <ErrorScope error={error}>
          <Field
            label="Your company’s account id"
            pointer="/account"
            required
            value={accountId}
            onChange={(e) => setAccountId(e.target.value)}
            hint="For accounts that sign in through their own identity provider (single sign-on)."
          />
          <button type="submit" className="secondary" disabled={busy || !accountId.trim()}>
            Sign in with your company account
          </button>
        </ErrorScope>
      </form>
    </Section>
  );
}

function Operator() {
  const { signInAsOperator } = useSession();
  const [token, setToken] = useState('');
  const { error, busy, run } = useAction('/token');
  return (
    <details className="card operator">
      <summary>Operator of this service</summary>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void run(() => signInAsOperator(token));
        }}
      >
        <ErrorScope error={error}>
          <FormErrors error={error} shown={['/token']} />
          <Field
            label="Administration token"
            pointer="/token"
            type="password"
            autoComplete="off"
            required
            value={token}
            onChange={(e) => setToken(e.target.value)}
            hint="Manages accounts and their wallet credentials. Kept in this tab only (session storage) and forgotten when you sign out or close it."
          />
          <button type="submit" className="secondary" disabled={busy || !token.trim()}>
            Sign in as operator
          </button>
        </ErrorScope>
      </form>
    </details>
  );
}

export function SignIn() {
  return (
    <main id="main" className="sign-in">
      <PageTitle>Sign in to the console</PageTitle>
      <Passkey />
      <Password />
      <SingleSignOn />
      <Operator />
    </main>
  );
}
