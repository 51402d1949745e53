/**
 * "Your account": the signed-in person's sessions (listSessions; this one marked; one
 * ended with endSession, every one with endAllSessions and signOut), passkeys (listPasskeys,
 * added as on the second-factor screen, removed with deletePasskey), password (setPassword) and
 * authenticator app (createTotpEnrollment, confirmTotpEnrollment).
 */
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api.ts';
import { ROLE_LABELS } from '../roles.ts';
import { usePerson, useSession } from '../session.tsx';
import { ConfirmButton, Loading, PageTitle, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors } from '../components/forms.tsx';
import { AddPasskey, TotpEnrolment } from '../components/SecondFactor.tsx';

const METHODS: Record<string, string> = { password: 'password', passkey: 'passkey', oidc: 'single sign-on', invitation: 'invitation' };

function Sessions() {
  const queryClient = useQueryClient();
  const { signOut } = useSession();
  const list = useQuery({ queryKey: ['me', 'sessions'], queryFn: () => ok(api.GET('/api/v1/me/sessions')) });
  const end = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/me/sessions/{id}', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['me', 'sessions'] }),
  });
  const everywhere = useMutation({
    mutationFn: async () => {
      await ok(api.DELETE('/api/v1/me/sessions'));
      await signOut();
    },
  });
  return (
    <section className="card" aria-labelledby="sessions">
      <h2 id="sessions">Sessions</h2>
      <FormErrors error={list.error ?? end.error ?? everywhere.error} />
      {list.isPending && <Loading what="Loading sessions" />}
      <ul className="plain">
        {list.data?.data.map((s) => (
          <li key={s.id} className="plain-item">
            <strong>{s.attributes.current ? 'This session' : (s.attributes.userAgent ?? 'Unknown browser')}</strong>
            {s.attributes.current && s.attributes.userAgent && <span className="muted"> · {s.attributes.userAgent}</span>} · signed in with{' '}
            {METHODS[s.attributes.method] ?? s.attributes.method} <Time at={s.attributes.createdAt} />
            {s.attributes.clientAddress && <> from {s.attributes.clientAddress}</>} · last used <Time at={s.attributes.lastSeenAt} />
            {!s.attributes.current && (
              <ConfirmButton
                label="End this session"
                question="End this session? That browser is signed out at once."
                confirmLabel="End"
                onConfirm={() => end.mutate(s.id)}
              />
            )}
          </li>
        ))}
      </ul>
      <ConfirmButton
        label="Sign out everywhere"
        danger
        question="Sign out of every browser, this one included?"
        confirmLabel="Sign out everywhere"
        onConfirm={() => everywhere.mutate()}
      />
    </section>
  );
}

function Passkeys() {
  const queryClient = useQueryClient();
  const { refresh } = useSession();
  const [adding, setAdding] = useState(false);
  const list = useQuery({ queryKey: ['me', 'passkeys'], queryFn: () => ok(api.GET('/api/v1/me/passkeys')) });
  const remove = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/me/passkeys/{id}', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['me', 'passkeys'] }),
  });
  return (
    <section className="card" aria-labelledby="passkeys">
      <h2 id="passkeys">Passkeys</h2>
      <FormErrors error={list.error ?? remove.error} />
      {list.data?.data.length === 0 && <p className="muted">No passkey yet.</p>}
      <ul className="plain">
        {list.data?.data.map((p) => (
          <li key={p.id} className="plain-item">
            <strong>{p.attributes.name}</strong> · added <Time at={p.attributes.createdAt} /> · last used <Time at={p.attributes.lastUsedAt} />
            <ConfirmButton
              label={`Remove ${p.attributes.name}`}
              danger
              question={`Remove the passkey “${p.attributes.name}”? It no longer signs you in.`}
              confirmLabel="Remove"
              onConfirm={() => remove.mutate(p.id)}
            />
          </li>
        ))}
      </ul>
      {adding ? (
        <AddPasskey
          onDone={() => {
            setAdding(false);
            void queryClient.invalidateQueries({ queryKey: ['me', 'passkeys'] });
            void refresh();
          }}
        />
      ) : (
        <button type="button" className="secondary" onClick={() => setAdding(true)}>
          Add a passkey
        </button>
      )}
    </section>
  );
}

function Password() {
  const [form, setForm] = useState({ currentPassword: '', password: '' });
  const [done, setDone] = useState(false);
  const save = useMutation({
    mutationFn: () =>
      ok(api.PUT('/api/v1/me/password', { body: { password: form.password, ...(form.currentPassword && { currentPassword: form.currentPassword }) } })),
    onSuccess: () => {
      setForm({ currentPassword: '', password: '' });
      setDone(true);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(false);
    save.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="password">
      <h2 id="password">Password</h2>
      <ErrorScope error={save.error}>
        <FormErrors error={save.error} shown={['/currentPassword', '/password']} />
        <Field
          label="Current password (if you have one)"
          pointer="/currentPassword"
          type="password"
          autoComplete="current-password"
          value={form.currentPassword}
          onChange={(e) => setForm({ ...form, currentPassword: e.target.value })}
        />
        <Field
          label="New password"
          pointer="/password"
          type="password"
          autoComplete="new-password"
          minLength={12}
          required
          value={form.password}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
          hint="At least 12 characters."
        />
        <button type="submit" className="secondary" disabled={save.isPending || form.password.length < 12}>
          Change password
        </button>
      </ErrorScope>
      {done && (
        <p className="alert success" role="status">
          Password changed.
        </p>
      )}
    </form>
  );
}

function Totp() {
  const person = usePerson();
  const { refresh } = useSession();
  const [done, setDone] = useState(false);
  return (
    <section className="card" aria-labelledby="totp">
      <h2 id="totp">Authenticator app</h2>
      {person.secondFactor.enrolled && !done && <p>A second factor is set up. Setting up an app again replaces the current one once confirmed.</p>}
      {done ? (
        <p className="alert success" role="status">
          Authenticator app set up.
        </p>
      ) : (
        <TotpEnrolment
          onDone={() => {
            setDone(true);
            void refresh();
          }}
        />
      )}
    </section>
  );
}

export default function Me() {
  const person = usePerson();
  return (
    <>
      <PageTitle>Your account</PageTitle>
      <p>
        {person.person.name} · {person.person.email}
        {person.role && <> · {ROLE_LABELS[person.role]} in this account</>}
      </p>
      <Sessions />
      <Passkeys />
      <Password />
      <Totp />
    </>
  );
}
