/**
 * The screen an owner or admin sees after signing in with a password alone: their role
 * needs a second factor, and until one is set up the API answers every other call
 * `403 second_factor_required` (the session says `secondFactor.required`). A passkey or an
 * authenticator app; once set up, the session is read again and the console opens.
 */
import { useSession } from '../session.tsx';
import { PageTitle } from '../components/common.tsx';
import { AddPasskey, TotpEnrolment } from '../components/SecondFactor.tsx';

export default function SecondFactor() {
  const { refresh, signOut } = useSession();
  const done = () => void refresh();
  return (
    <main id="main" className="sign-in">
      <PageTitle>Protect your account</PageTitle>
      <p>Your role can change everything in this account, so a password alone is not enough. Add a passkey or an authenticator app to continue.</p>
      <section className="card" aria-labelledby="second-passkey">
        <h2 id="second-passkey">Passkey</h2>
        <AddPasskey onDone={done} label="Create a passkey" />
      </section>
      <section className="card" aria-labelledby="second-totp">
        <h2 id="second-totp">Authenticator app</h2>
        <TotpEnrolment onDone={done} />
      </section>
      <button type="button" className="secondary" onClick={() => void signOut()}>
        Sign out
      </button>
    </main>
  );
}
