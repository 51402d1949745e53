/**
 * Who the console works as: an account (its API key) or the operator (the administration token),
 * who may switch to an account (a key made for the console with createApiToken) and back.
 * Kept in `sessionStorage` — gone when the tab closes, never in `localStorage`
 * (https://cheatsheetseries.owasp.org/cheatsheets/HTML5_Security_Cheat_Sheet.html#local-storage).
 */
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiError, toApiError, setToken } from './api.ts';

export interface Session {
  kind: 'account' | 'admin';
  /** The token calls are made with. */
  token: string;
  /** With `kind: 'account'` reached from administration: the token to go back with. */
  adminToken?: string;
  accountName?: string;
}

const KEY = 'wps-console-session';

function stored(): Session | null {
  try {
    const text = sessionStorage.getItem(KEY);
    return text ? (JSON.parse(text) as Session) : null;
  } catch {
    return null;
  }
}

interface SessionApi {
  session: Session | null;
  signIn(token: string): Promise<void>;
  switchTo(accountId: string, accountName: string): Promise<void>;
  backToAdministration(): void;
  signOut(): void;
}

const SessionContext = createContext<SessionApi | null>(null);

/** The session of the console. */
export function useSession(): SessionApi {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/**
 * Finds what a token is by asking the two front doors: an account's key reads `/api/v1/entities`,
 * the administration token reads `/admin/v1/accounts`.
 * @throws ApiError (401, pointer `/token`) when neither accepts it.
 */
async function identify(token: string): Promise<Session> {
  const headers = { Authorization: `Bearer ${token}` };
  const asAccount = await api.GET('/api/v1/entities', { params: { query: { perPage: 1 } }, headers });
  if (asAccount.response.ok) return { kind: 'account', token };
  const asAdmin = await api.GET('/admin/v1/accounts', { params: { query: { perPage: 1 } }, headers });
  if (asAdmin.response.ok) return { kind: 'admin', token };
  if (asAccount.response.status === 401 && asAdmin.response.status === 401) {
    throw new ApiError(401, [{ detail: 'Neither an account API key nor the administration token: check it and try again.', source: { pointer: '/token' } }]);
  }
  throw toApiError(asAccount.response.status, asAccount.error);
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [session, setSession] = useState<Session | null>(() => {
    const s = stored();
    setToken(s?.token ?? null);
    return s;
  });
  const apply = useCallback(
    (next: Session | null) => {
      queryClient.clear();
      if (next) sessionStorage.setItem(KEY, JSON.stringify(next));
      else sessionStorage.removeItem(KEY);
      setToken(next?.token ?? null, () => apply(null));
      setSession(next);
      window.location.hash = '#/';
    },
    [queryClient],
  );
  setToken(session?.token ?? null, () => apply(null));

  const value = useMemo<SessionApi>(
    () => ({
      session,
      async signIn(token) {
        apply(await identify(token.trim()));
      },
      async switchTo(accountId, accountName) {
        if (session?.kind !== 'admin') return;
        const res = await api.POST('/admin/v1/accounts/{accountId}/tokens', {
          params: { path: { accountId } },
          body: { apiToken: { name: 'Operator console' } },
        });
        const token = res.data?.data.attributes.token;
        if (!token) throw toApiError(res.response.status, res.error);
        apply({ kind: 'account', token, adminToken: session.token, accountName });
      },
      backToAdministration() {
        if (session?.adminToken) apply({ kind: 'admin', token: session.adminToken });
      },
      signOut() {
        apply(null);
      },
    }),
    [session, apply],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
