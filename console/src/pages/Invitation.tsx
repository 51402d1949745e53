/**
 * Accepting an invitation: the link an owner or the operator shared,
 * `<base>/console/#invitation=<token>` (the token in the fragment never reaches a server's log).
 * The page shows the account and role (createInvitationAcceptanceOptions), asks the new person's
 * name (and e-mail address when the invitation names none), and a way to sign in from now on: a
 * passkey, created here (the default), or a password. acceptInvitation signs the person in.
 * A person already signed in joins the account as they are.
 */
import { type FormEvent, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, ok, type Schemas } from '../api.ts';
import { defaultPasskeyName, register } from '../passkeys.ts';
import { useSession } from '../session.tsx';
import { Loading, PageTitle } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors } from '../components/forms.tsx';
import { ROLE_LABELS } from '../roles.ts';

export default function Invitation({ token }: { token: string }) {
  const { session, signedIn } = useSession();
  const options = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => ok(api.POST('/api/v1/invitation-acceptances/options', { body: { token } })),
  });
  const [form, setForm] = useState({ name: '', email: '', password: '', passkeyName: defaultPasskeyName() });
  const [method, setMethod] = useState<'passkey' | 'password'>('passkey');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const accept = async (body: () => Promise<Schemas['InvitationAcceptRequest']>) => {
    setBusy(true);
    setError(null);
    try {
      signedIn(await ok(api.POST('/api/v1/invitation-acceptances', { body: await body() })));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invited = options.data!.data.attributes;
    const who = { token, name: form.name.trim(), ...(!invited.email && { email: form.email.trim() }) };
    void accept(async () => {
      if (method === 'password') return { ...who, password: form.password };
      // A fresh challenge for each try: one the authenticator refused may not be used again.
      const fresh = await ok(api.POST('/api/v1/invitation-acceptances/options', { body: { token } }));
      const credential = await register(fresh.data.attributes.publicKey, '/passkey/credential');
      return { ...who, passkey: { challengeId: fresh.data.id, name: form.passkeyName.trim() || defaultPasskeyName(), credential } };
    });
  };
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  if (options.isPending)
    return (
      <main id="main" className="sign-in">
        <Loading what="Opening the invitation" />
      </main>
    );
  if (!options.data)
    return (
      <main id="main" className="sign-in">
        <PageTitle>Invitation</PageTitle>
        <FormErrors error={options.error} />
        <p>
          Ask whoever invited you for a new link, or <a href="#/">sign in</a>.
        </p>
      </main>
    );
  const invited = options.data.data.attributes;
  return (
    <main id="main" className="sign-in">
      <PageTitle>Join {invited.accountName}</PageTitle>
      <p>
        You are invited as <strong>{ROLE_LABELS[invited.role]}</strong>
        {invited.email && (
          <>
            {' '}
            with the address <strong>{invited.email}</strong>
          </>
        )}
        .
      </p>
      {session?.kind === 'person' ? (
        <div className="card">
          <ErrorScope error={error}>
            <FormErrors error={error} />
            <button type="button" disabled={busy} onClick={() => accept(async () => ({ token }))}>
              Join as {session.person.name}
            </button>
          </ErrorScope>
        </div>
      ) : (
        <form className="card" onSubmit={submit}>
          <ErrorScope error={error}>
            <FormErrors error={error} shown={['/name', '/email', '/password', '/passkey/name', '/passkey/credential']} />
            <Field label="Your name" pointer="/name" autoComplete="name" required value={form.name} onChange={set('name')} />
            {!invited.email && (
              <Field label="Your e-mail address" pointer="/email" type="email" autoComplete="email" required value={form.email} onChange={set('email')} />
            )}
            <fieldset>
              <legend>How you will sign in</legend>
              <label className="choice">
                <input type="radio" name="method" value="passkey" checked={method === 'passkey'} onChange={() => setMethod('passkey')} /> Create a passkey
                (recommended: your device unlocks it)
              </label>
              <label className="choice">
                <input type="radio" name="method" value="password" checked={method === 'password'} onChange={() => setMethod('password')} /> Choose a password
              </label>
            </fieldset>
            {method === 'passkey' ? (
              <Field
                key="passkey-name"
                label="Passkey name"
                pointer="/passkey/name"
                required
                maxLength={100}
                value={form.passkeyName}
                onChange={set('passkeyName')}
                hint="To tell your passkeys apart later."
              />
            ) : (
              <Field
                key="password"
                label="Password"
                pointer="/password"
                type="password"
                autoComplete="new-password"
                required
                value={form.password}
                onChange={set('password')}
                hint={
                  invited.role === 'owner' || invited.role === 'admin'
                    ? 'At least 12 characters. Your role also needs an authenticator app code, set up next.'
                    : 'At least 12 characters.'
                }
              />
            )}
            {error instanceof ApiError && error.at('/passkey/credential') && (
              <p className="field-error" role="alert">
                {error.at('/passkey/credential')}
              </p>
            )}
            <button type="submit" disabled={busy || !form.name.trim()}>
              {busy ? 'Joining…' : method === 'passkey' ? 'Create a passkey and join' : 'Join'}
            </button>
          </ErrorScope>
        </form>
      )}
    </main>
  );
}
