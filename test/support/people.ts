/**
 * People for tests: an invitation made by the administrator and accepted with a
 * password, a TOTP second factor enrolled when the role needs one, and the headers a signed-in
 * browser sends (the session cookie and, for changes, its CSRF token). Requests go without
 * supertest's agent, which would keep the cookie and send it on every later request.
 */
import { generate } from 'otplib';
import supertest from 'supertest';
import type { TestService } from './testService.ts';

/** A person signed in through the API. */
export interface SignedInPerson {
  personId: string;
  email: string;
  password: string;
  /** The cookie header of the session (`wps_session=…`). */
  cookie: string;
  csrfToken: string;
  /** The TOTP secret, when one was enrolled. */
  totpSecret?: string;
}

let count = 0;

/** The `wps_session=…` pair of a response's Set-Cookie. */
export function cookieOf(setCookie: string | string[] | undefined): string {
  const value = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!value) throw new Error('no Set-Cookie in the answer');
  return value.split(';')[0]!;
}

/** The headers of a signed-in browser: the cookie, and the CSRF token for requests that change state. */
export function session(person: Pick<SignedInPerson, 'cookie' | 'csrfToken'>): Record<string, string> {
  return { Cookie: person.cookie, 'X-CSRF-Token': person.csrfToken };
}

/** A current TOTP code of `secret`. */
export function totpCode(secret: string): Promise<string> {
  return generate({ secret });
}

/**
 * Invites a new person to `accountId` with `role` (the administration API), accepts with a
 * password, and, for an owner or admin, enrols a TOTP second factor (as they must).
 */
export async function joinAs(
  service: TestService,
  accountId: string,
  role: 'owner' | 'admin' | 'designer' | 'support' | 'viewer',
  name?: string,
): Promise<SignedInPerson> {
  count += 1;
  const email = `person${count}.${role}@example.pl`;
  const password = `Zażółć gęślą jaźń ${count}`;
  const invited = await supertest(service.app)
    .post(`/admin/v1/accounts/${accountId}/invitations`)
    .set(service.adminAuth())
    .send({ invitation: { role, email } })
    .expect(201);
  const token = new URL(invited.body.data.attributes.url).hash.replace('#invitation=', '');
  const accepted = await supertest(service.app)
    .post('/api/v1/invitation-acceptances')
    .send({ token, name: name ?? `Łucja ${role}`, password })
    .expect(201);
  const person: SignedInPerson = {
    personId: accepted.body.data.attributes.person.id,
    email,
    password,
    cookie: cookieOf(accepted.headers['set-cookie']),
    csrfToken: accepted.body.data.attributes.csrfToken,
  };
  if (role === 'owner' || role === 'admin') {
    const enrolment = await supertest(service.app).post('/api/v1/me/totp').set(session(person)).expect(201);
    person.totpSecret = enrolment.body.data.attributes.secret as string;
    await supertest(service.app)
      .post('/api/v1/me/totp/confirm')
      .set(session(person))
      .send({ code: await totpCode(person.totpSecret) })
      .expect(204);
  }
  return person;
}

/**
 * Fresh sessions of one person for the tests that walk every operation of the contract: a new
 * password sign-in per request, so that a walked `signOut` or `endAllSessions` ends only the
 * session it was sent with. The person is a viewer (no second factor to enrol); the operations
 * that take only the cookie need no scope.
 */
export async function sessionSource(service: TestService, accountId: string): Promise<() => Promise<Record<string, string>>> {
  const person = await joinAs(service, accountId, 'viewer');
  return async () => {
    const res = await supertest(service.app).post('/api/v1/sign-in/password').send({ email: person.email, password: person.password }).expect(201);
    return { Cookie: cookieOf(res.headers['set-cookie']), 'X-CSRF-Token': res.body.data.attributes.csrfToken };
  };
}

/** A session cookie no session has (43 characters, the shape of a real one). */
export const UNKNOWN_SESSION_COOKIE = { Cookie: `wps_session=${'A'.repeat(43)}` };
