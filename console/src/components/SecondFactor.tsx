/**
 * Setting up a second way to prove who one is: an authenticator app (TOTP, RFC 6238:
 * createTotpEnrollment gives a secret and its `otpauth://` URI, shown as text and as a QR code;
 * confirmTotpEnrollment takes a current code) or a passkey (createPasskeyRegistrationOptions,
 * the device's authenticator, registerPasskey). Owners and admins who signed in with a password
 * must have one; the "Your account" page offers the same.
 */
import { type FormEvent, useEffect, useState } from 'react';
import QRCode from 'qrcode';
import { api, ok } from '../api.ts';
import { addPasskey, defaultPasskeyName } from '../passkeys.ts';
import { ErrorScope, Field, FormErrors } from './forms.tsx';

/** The authenticator app's enrolment: start, scan or type the secret, confirm with a code; `onDone` once confirmed. */
export function TotpEnrolment({ onDone }: { onDone: () => void }) {
  const [enrolment, setEnrolment] = useState<{ secret: string; uri: string } | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (enrolment) QRCode.toDataURL(enrolment.uri, { margin: 2, width: 200 }).then(setQr, () => setQr(null));
  }, [enrolment]);
  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const start = () => act(async () => setEnrolment((await ok(api.POST('/api/v1/me/totp'))).data.attributes));
  const confirm = (event: FormEvent) => {
    event.preventDefault();
    void act(async () => {
      await ok(api.POST('/api/v1/me/totp/confirm', { body: { code: code.trim() } }));
      onDone();
    });
  };
  if (!enrolment)
    return (
      <>
        <FormErrors error={error} />
        <button type="button" className="secondary" disabled={busy} onClick={start}>
          Set up an authenticator app
        </button>
      </>
    );
  return (
    <form onSubmit={confirm}>
      <p>Scan the code with your authenticator app, or type the secret into it. Then enter the 6-digit code it shows.</p>
      {qr && <img className="qr" src={qr} width={200} height={200} alt="QR code of the authenticator app's secret" />}
      <p>
        Secret: <code className="secret">{enrolment.secret}</code>
      </p>
      <ErrorScope error={error}>
        <FormErrors error={error} shown={['/code']} />
        <Field
          label="Code from your authenticator app"
          pointer="/code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <button type="submit" disabled={busy || !code.trim()}>
          Confirm the code
        </button>
      </ErrorScope>
    </form>
  );
}

/** Adds a passkey to the signed-in person, named in a field; `onDone` once stored. */
export function AddPasskey({ onDone, label = 'Add a passkey' }: { onDone: () => void; label?: string }) {
  const [name, setName] = useState(defaultPasskeyName);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await addPasskey(name.trim());
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit}>
      <ErrorScope error={error}>
        <FormErrors error={error} shown={['/name', '/credential']} />
        <Field label="Passkey name" pointer="/name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        {error ? <CredentialError error={error} /> : null}
        <button type="submit" disabled={busy || !name.trim()}>
          {busy ? 'Waiting for your device…' : label}
        </button>
      </ErrorScope>
    </form>
  );
}

function CredentialError({ error }: { error: unknown }) {
  const detail = (error as { at?: (p: string) => string | undefined }).at?.('/credential');
  if (!detail) return null;
  return (
    <p className="field-error" role="alert">
      {detail}
    </p>
  );
}
