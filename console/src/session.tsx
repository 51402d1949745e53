/**
 * Who the console works as: an account (its API key) or the operator (the administration token),
 * who may switch to an account (a key made for the console with createApiToken) and back.
 * Kept in `sessionStorage` — gone when the tab closes, never in `localStorage`
 * (https://cheatsheetseries.owasp.org/cheatsheets/HTML5_Security_Cheat_Sheet.html#local-storage).
 */
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiError, toApiError, setToken } from './api.ts';

export interface Session {
  kind: 'account' | 'admin';
  /** The token calls are made with. */
  token: string;
  /** With `kind: 'account'` reached from administration: the token to go back with. */
  adminToken?: string;
  accountName?: string;
  /** With `adminToken`: the id of the API key "Work as" made for this console, revoked when the operator goes back, signs out or leaves. */
  tokenId?: string;
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

/**
 * Revokes the key "Work as" made (revokeApiToken with the administration token). `keepalive`
 * lets the request outlive the page when it is sent as the page goes away
 * (https://developer.mozilla.org/en-US/docs/Web/API/RequestInit#keepalive).
 */
function revokeWorkKey(session: Session | null): Promise<unknown> {
  if (!session?.adminToken || !session.tokenId) return Promise.resolve();
  return fetch(`/admin/v1/tokens/${encodeURIComponent(session.tokenId)}/revoke`, {
    method: 'POST',
    keepalive: true,
    headers: { Authorization: `Bearer ${session.adminToken}` },
  }).catch(() => undefined);
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

  // Leaving the console (closing the tab, reloading, going elsewhere) ends "Work as": its key is
  // revoked and the tab comes back to administration.
  useEffect(() => {
    if (!session?.tokenId || !session.adminToken) return;
    const leave = () => {
      void revokeWorkKey(session);
      sessionStorage.setItem(KEY, JSON.stringify({ kind: 'admin', token: session.adminToken }));
    };
    window.addEventListener('pagehide', leave);
    return () => window.removeEventListener('pagehide', leave);
  }, [session]);

  const value = useMemo<SessionApi>(
    () => ({
      session,
      async signIn(token) {
        apply(await identify(token.trim()));
      },
      async switchTo(accountId, accountName) {
        if (session?.kind !== 'admin') return;
        // One key for this console's visit to the account, revoked when it ends.
        const res = await api.POST('/admin/v1/accounts/{accountId}/tokens', {
          params: { path: { accountId } },
          body: { apiToken: { name: 'Operator console (Work as)' } },
        });
        const token = res.data?.data.attributes.token;
        if (!token) throw toApiError(res.response.status, res.error);
        apply({ kind: 'account', token, adminToken: session.token, accountName, tokenId: res.data!.data.id });
      },
      backToAdministration() {
        if (!session?.adminToken) return;
        void revokeWorkKey(session);
        apply({ kind: 'admin', token: session.adminToken });
      },
      signOut() {
        void revokeWorkKey(session);
        apply(null);
      },
    }),
    [session, apply],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
