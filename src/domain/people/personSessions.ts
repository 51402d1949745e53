/**
 * Console sessions of people: opening one at sign-in, resolving the cookie of a
 * request to the person, and the `session` resource the console reads.
 *
 * A session ends after `SESSION_IDLE_TIMEOUT_MINUTES` without a request and
 * `SESSION_ABSOLUTE_TIMEOUT_HOURS` after sign-in (OWASP Session Management Cheat Sheet, "Session
 * Expiration", https://cheatsheetseries.owasp.org/cheatsheets/Session_Management_Cheat_Sheet.html#session-expiration).
 * Every sign-in makes a new session with a new token; a cookie the browser had is never taken
 * over (session fixation, ibid. "Renew the Session ID After Any Privilege Level Change").
 *
 * @module domain/people/personSessions
 */
import type { components } from '../../../generated/api.d.ts';
import type { Config } from '../../config.ts';
import type { PrismaExecutor, SqlExecutor } from '../../db/database.ts';
import { AuthenticationError } from '../../errors.ts';
import type { PersonPrincipal } from '../../security/principal.ts';
import { needsSecondFactor, scopesOfRole } from '../../security/roles.ts';
import { csrfTokenOf, generateSessionToken, sessionTokenHash } from '../../security/sessions.ts';
import { toTimestamp } from '../serialize.ts';
import { listMemberships } from './peopleStore.ts';
import {
  type ActiveSession,
  deleteSession,
  findSession,
  insertSession,
  LAST_SEEN_RESOLUTION_MS,
  type SignInMethod,
  touchSession,
} from './personSessionStore.ts';

/** The session resource (openapi/components/schemas/Session.yaml). */
export type SessionResource = components['schemas']['Session'];

/** Where a sign-in comes from (stored with the session, shown on the sessions page). */
export interface SignInClient {
  clientAddress: string | null;
  userAgent: string | null;
}

/** Idle and absolute timeouts of `config`, in ms. */
function timeouts(config: Pick<Config, 'sessionIdleTimeoutMinutes' | 'sessionAbsoluteTimeoutHours'>) {
  return { idleMs: config.sessionIdleTimeoutMinutes * 60_000, absoluteMs: config.sessionAbsoluteTimeoutHours * 3_600_000 };
}

/**
 * Opens a session for a person who just proved who they are, in `accountId` (or their first
 * account when null).
 * @returns The token for the cookie (never stored) and the session's id.
 */
export async function openSession(
  tx: PrismaExecutor,
  config: Config,
  now: Date,
  session: { personId: string; method: SignInMethod; accountId: string | null; client: SignInClient },
): Promise<{ token: string; id: string }> {
  const accountId = session.accountId ?? (await listMemberships(tx, session.personId))[0]?.accountId ?? null;
  const { token, tokenHash } = generateSessionToken();
  const id = await insertSession(tx, {
    personId: session.personId,
    tokenHash,
    accountId,
    method: session.method,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + timeouts(config).absoluteMs),
    clientAddress: session.client.clientAddress?.slice(0, 64) ?? null,
    userAgent: session.client.userAgent?.slice(0, 500) ?? null,
  });
  return { token, id };
}

/** Whether a session signed in with a password alone must enrol a second factor before anything else. */
function secondFactorRequired(session: ActiveSession): boolean {
  return session.method === 'password' && session.role !== null && needsSecondFactor(session.role) && !session.secondFactor;
}

/**
 * The person a session token stands for. A session past its idle or absolute timeout is deleted.
 * Its `lastSeenAt` is refreshed at most every {@link LAST_SEEN_RESOLUTION_MS}.
 * @throws AuthenticationError (401) for an unknown, ended or timed-out session.
 */
export async function resolveSession(db: SqlExecutor, config: Config, token: string, now: Date): Promise<PersonPrincipal> {
  const session = await findSession(db, sessionTokenHash(token));
  if (!session) throw new AuthenticationError('The session has ended or is unknown: sign in again.', 'invalid_token', { header: 'Cookie' });
  const { idleMs } = timeouts(config);
  if (session.expiresAt <= now || now.getTime() - session.lastSeenAt.getTime() > idleMs) {
    await deleteSession(db, session.id);
    throw new AuthenticationError('The session has timed out: sign in again.', 'invalid_token', { header: 'Cookie' });
  }
  if (now.getTime() - session.lastSeenAt.getTime() > LAST_SEEN_RESOLUTION_MS) await touchSession(db, session.id, now);
  return {
    type: 'person',
    id: session.personId,
    sessionId: session.id,
    accountId: session.role === null ? null : session.accountId,
    email: session.email,
    name: session.name,
    role: session.role,
    scopes: session.role === null ? new Set() : scopesOfRole(session.role),
    secondFactorRequired: secondFactorRequired(session),
    singleSignOn: session.method === 'oidc',
  };
}

/**
 * The session resource of a token, as its person sees it.
 * @throws AuthenticationError when the session has ended meanwhile.
 */
export async function sessionResource(db: PrismaExecutor, config: Config, token: string): Promise<SessionResource> {
  const session = await findSession(db, sessionTokenHash(token));
  if (!session) throw new AuthenticationError('The session has ended or is unknown: sign in again.', 'invalid_token', { header: 'Cookie' });
  // A single sign-on session sees only the account whose issuer signed it in (src/domain/people/singleSignOn.ts).
  const memberships = (await listMemberships(db, session.personId)).filter((m) => session.method !== 'oidc' || m.accountId === session.accountId);
  const role = session.role;
  const idleEnd = Math.min(session.lastSeenAt.getTime() + timeouts(config).idleMs, session.expiresAt.getTime());
  return {
    id: session.id,
    type: 'session',
    attributes: {
      person: { id: session.personId, email: session.email, name: session.name },
      accountId: role === null ? null : session.accountId,
      role,
      scopes: role === null ? [] : ([...scopesOfRole(role)] as SessionResource['attributes']['scopes']),
      memberships: memberships.map((m) => ({ accountId: m.accountId, accountName: m.accountName, role: m.role })),
      method: session.method,
      createdAt: toTimestamp(session.createdAt),
      expiresAt: toTimestamp(session.expiresAt),
      idleExpiresAt: toTimestamp(new Date(idleEnd)),
      csrfToken: csrfTokenOf(token),
      secondFactor: { enrolled: session.secondFactor, required: secondFactorRequired(session) },
    },
  };
}
