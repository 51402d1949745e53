/**
 * Who the console works as: a person signed in to an account, or the operator.
 *
 * A person's session lives on the server and reaches the browser only as an `HttpOnly` cookie
 * the console cannot read; on load the console asks `GET /api/v1/session` who is signed in
 * (`401`: nobody, the sign-in page) and keeps the answer — person, account, role, its scopes,
 * the other memberships and the CSRF token every state-changing call sends (src/api.ts). The
 * console holds no API key.
 *
 * The operator (accounts, their keys and wallet credentials: the `/admin/v1` pages only) signs in
 * with the administration token, kept in `sessionStorage` — gone when the tab closes, never in
 * `localStorage` (https://cheatsheetseries.owasp.org/cheatsheets/HTML5_Security_Cheat_Sheet.html#local-storage).
 */
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiError, ok, setAdminToken, setCsrfToken, setUnauthorizedHandler, type Schemas, toApiError } from './api.ts';

/** A person's session: the attributes of getSession. */
export type PersonSession = { kind: 'person'; id: string } & Schemas['Session']['attributes'];
/** The operator, with the administration token. */
export interface OperatorSession {
  kind: 'admin';
  token: string;
}
export type Session = PersonSession | OperatorSession;

const OPERATOR_KEY = 'wps-console-operator';

function storedOperator(): OperatorSession | null {
  try {
    const token = sessionStorage.getItem(OPERATOR_KEY);
    return token ? { kind: 'admin', token } : null;
  } catch {
    return null;
  }
}

interface SessionApi {
  /** Null once known to be signed out; undefined while the console asks. */
  session: Session | null | undefined;
  /** Whether the session's role has `scope` (the operator has none of an account's). */
  can(scope: Schemas['ApiTokenScope']): boolean;
  /** Takes the session a sign-in answered (password, passkey, invitation) and opens the console. */
  signedIn(doc: Schemas['SessionDocument']): void;
  /** Checks the administration token and works as the operator. @throws ApiError 401 at `/token`. */
  signInAsOperator(token: string): Promise<void>;
  /** Reads the session again (after enrolling a second factor, for instance). */
  refresh(): Promise<void>;
  /** Makes another of the person's accounts the current one (updateSession); every page's data is read again. */
  switchAccount(accountId: string): Promise<void>;
  /** Ends the session (signOut) or forgets the operator's token. */
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionApi | null>(null);

/** The session of the console. */
export function useSession(): SessionApi {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The session of a signed-in person (for pages only a person reaches). @throws Error otherwise. */
export function usePerson(): PersonSession {
  const { session } = useSession();
  if (session?.kind !== 'person') throw new Error('usePerson without a signed-in person');
  return session;
}

const personSession = (doc: Schemas['SessionDocument']): PersonSession => ({ kind: 'person', id: doc.data.id, ...doc.data.attributes });

/** Asks the server who is signed in: the session, or null on 401. @throws ApiError on any other failure. */
async function loadSession(): Promise<PersonSession | null> {
  const res = await api.GET('/api/v1/session');
  if (res.response.status === 401) return null;
  if (!res.data) throw toApiError(res.response.status, res.error);
  return personSession(res.data);
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [session, setSession] = useState<Session | null | undefined>(() => storedOperator() ?? undefined);
  const [loadError, setLoadError] = useState<unknown>(null);

  const apply = useCallback(
    (next: Session | null) => {
      queryClient.clear();
      setCsrfToken(next?.kind === 'person' ? next.csrfToken : null);
      setAdminToken(next?.kind === 'admin' ? next.token : null);
      if (next?.kind === 'admin') sessionStorage.setItem(OPERATOR_KEY, next.token);
      else sessionStorage.removeItem(OPERATOR_KEY);
      setSession(next);
    },
    [queryClient],
  );
  useEffect(() => setUnauthorizedHandler(() => apply(null)), [apply]);

  useEffect(() => {
    if (session !== undefined) {
      if (session?.kind === 'admin') setAdminToken(session.token);
      return;
    }
    loadSession().then(apply, setLoadError);
  }, [session, apply]);

  const value = useMemo<SessionApi>(
    () => ({
      session,
      can: (scope) => session?.kind === 'person' && session.scopes.includes(scope),
      signedIn(doc) {
        apply(personSession(doc));
        window.location.hash = '#/';
      },
      async signInAsOperator(token) {
        const headers = { Authorization: `Bearer ${token.trim()}` };
        const res = await api.GET('/admin/v1/accounts', { params: { query: { perPage: 1 } }, headers });
        if (res.response.status === 401)
          throw new ApiError(401, [{ detail: 'This is not the administration token: check it and try again.', source: { pointer: '/token' } }]);
        if (!res.response.ok) throw toApiError(res.response.status, res.error);
        apply({ kind: 'admin', token: token.trim() });
        window.location.hash = '#/';
      },
      async refresh() {
        // The same person and account: the pages' data stays.
        const next = await loadSession();
        if (!next) return apply(null);
        setCsrfToken(next.csrfToken);
        setSession(next);
      },
      async switchAccount(accountId) {
        const doc = await ok(api.PATCH('/api/v1/session', { body: { session: { accountId } } }));
        apply(personSession(doc));
        window.location.hash = '#/';
      },
      async signOut() {
        if (session?.kind === 'person') await api.DELETE('/api/v1/session').catch(() => undefined);
        apply(null);
        window.location.hash = '#/';
      },
    }),
    [session, apply],
  );
  if (loadError)
    return (
      <main id="main" className="sign-in">
        <div className="alert" role="alert">
          <p>The console could not reach the service: {loadError instanceof Error ? loadError.message : String(loadError)} Reload the page to try again.</p>
        </div>
      </main>
    );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
