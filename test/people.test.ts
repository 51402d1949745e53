/**
 * People, roles, invitations and console sessions through HTTP on a real database:
 * invitations accepted with a password, the second factor owners and admins must enrol, each
 * role's scopes enforced by the same middleware as keys, members changed and removed, and the
 * session's security — a new session id at every sign-in, cookie flags, CSRF, cross-site
 * refusal, timeouts, "sign out everywhere", lockout, and no password or secret in logs or audit
 * events. Passkeys in a real browser: test/peopleBrowser.test.ts; single sign-on:
 * test/singleSignOn.test.ts.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import supertest from 'supertest';
import { ROLE_SCOPES } from '../src/security/roles.ts';
import { cookieOf, joinAs, session, type SignedInPerson, totpCode } from './support/people.ts';
import { startTestService, TestClock, type TestService } from './support/testService.ts';
import { testDatabaseKind } from './support/testDatabase.ts';

let service: TestService;
let accountId: string;
let apiKey: string;
let owner: SignedInPerson;
const clock = new TestClock(new Date());
const api = () => supertest(service.app);

beforeAll(async () => {
  service = await startTestService({ clock, config: { sessionIdleTimeoutMinutes: 30, sessionAbsoluteTimeoutHours: 12 } });
  ({ accountId, token: apiKey } = await service.createAccount('Kawiarnia Łódź'));
  owner = await joinAs(service, accountId, 'owner', 'Agnieszka Wróbel');
});
afterAll(() => service.close());

describe('invitations and the second factor', () => {
  test('an owner who joined with a password may only enrol a second factor until they have one', async () => {
    const invited = await api()
      .post(`/admin/v1/accounts/${accountId}/invitations`)
      .set(service.adminAuth())
      .send({ invitation: { role: 'owner' } })
      .expect(201);
    expect(invited.headers['cache-control']).toBe('no-store');
    expect(invited.body.meta).toEqual({ emailSent: false });
    const token = invited.body.data.attributes.url.split('#invitation=')[1];
    const joined = await api()
      .post('/api/v1/invitation-acceptances')
      .send({ token, name: '田中 由紀', email: 'Yuki.Tanaka@example.jp', password: 'correct horse battery staple' })
      .expect(201);
    const person = { cookie: cookieOf(joined.headers['set-cookie']), csrfToken: joined.body.data.attributes.csrfToken };
    expect(joined.body.data.attributes).toMatchObject({
      role: 'owner',
      secondFactor: { enrolled: false, required: true },
      person: { email: 'yuki.tanaka@example.jp', name: '田中 由紀' },
    });
    const refused = await api().get('/api/v1/members').set(session(person)).expect(403);
    expect(refused.body.errors[0].code).toBe('second_factor_required');
    const enrolment = await api().post('/api/v1/me/totp').set(session(person)).expect(201);
    const { secret, uri } = enrolment.body.data.attributes;
    expect(uri).toMatch(/^otpauth:\/\/totp\/Wallet%20Pass%20Service:yuki\.tanaka%40example\.jp\?/);
    const wrong = await api().post('/api/v1/me/totp/confirm').set(session(person)).send({ code: '000000' }).expect(400);
    expect(wrong.body.errors[0].source).toEqual({ pointer: '/code' });
    await api()
      .post('/api/v1/me/totp/confirm')
      .set(session(person))
      .send({ code: await totpCode(secret) })
      .expect(204);
    await api().get('/api/v1/members').set(session(person)).expect(200);
    // From now on a password sign-in needs the code.
    const withoutCode = await api()
      .post('/api/v1/sign-in/password')
      .send({ email: 'yuki.tanaka@example.jp', password: 'correct horse battery staple' })
      .expect(401);
    expect(withoutCode.body.errors[0]).toMatchObject({ code: 'sign_in_failed', detail: expect.stringContaining('totpCode') });
    await api()
      .post('/api/v1/sign-in/password')
      .send({ email: 'YUKI.TANAKA@example.jp', password: 'correct horse battery staple', totpCode: await totpCode(secret) })
      .expect(201);
    // The link worked once.
    const again = await api()
      .post('/api/v1/invitation-acceptances')
      .send({ token, name: 'Someone', email: 'someone@example.com', password: 'another long password' })
      .expect(404);
    expect(again.body.errors[0].source).toEqual({ pointer: '/token' });
  });

  test('an invitation for an address is accepted with that address only, and its options say what it offers', async () => {
    const invited = await api()
      .post('/api/v1/invitations')
      .set(session(owner))
      .send({ invitation: { role: 'support', email: 'olga@example.ua', expiresInHours: 2 } })
      .expect(201);
    const token = invited.body.data.attributes.url.split('#invitation=')[1];
    const options = await api().post('/api/v1/invitation-acceptances/options').send({ token }).expect(201);
    expect(options.body.data.attributes).toMatchObject({
      accountName: 'Kawiarnia Łódź',
      role: 'support',
      email: 'olga@example.ua',
      publicKey: { challenge: expect.any(String) },
    });
    expect(options.body.data.attributes.publicKey.authenticatorSelection).toMatchObject({ residentKey: 'required' });
    const other = await api()
      .post('/api/v1/invitation-acceptances')
      .send({ token, name: 'Ольга', email: 'someone@example.ua', password: 'Пароль довгий 2026' })
      .expect(400);
    expect(other.body.errors[0].source).toEqual({ pointer: '/email' });
    const noWay = await api().post('/api/v1/invitation-acceptances').send({ token, name: 'Ольга' }).expect(400);
    expect(noWay.body.errors[0].source).toEqual({ pointer: '/passkey' });
    const badPasskey = await api()
      .post('/api/v1/invitation-acceptances')
      .send({
        token,
        name: 'Ольга',
        passkey: { challengeId: options.body.data.id, name: 'Phone', credential: { id: 'x', rawId: 'x', type: 'public-key', response: {} } },
      })
      .expect(400);
    expect(badPasskey.body.errors[0].source).toEqual({ pointer: '/passkey/credential' });
    const joined = await api().post('/api/v1/invitation-acceptances').send({ token, name: 'Ольга Коваль', password: 'Пароль довгий 2026' }).expect(201);
    expect(joined.body.data.attributes).toMatchObject({ role: 'support', person: { email: 'olga@example.ua' }, secondFactor: { required: false } });
    const listed = await api().get('/api/v1/invitations').set(session(owner)).expect(200);
    expect(listed.body.data.find((i: { id: string }) => i.id === invited.body.data.id).attributes).toMatchObject({
      status: 'accepted',
      createdBy: 'Agnieszka Wróbel',
    });
    expect(JSON.stringify(listed.body)).not.toContain(token);
    await api().post(`/api/v1/invitations/${invited.body.data.id}/revoke`).set(session(owner)).expect(409);
  });

  test('a revoked invitation no longer opens; an admin cannot invite an owner; a key with members:write can invite', async () => {
    const invited = await api()
      .post('/api/v1/invitations')
      .set(service.auth(apiKey))
      .send({ invitation: { role: 'viewer' } })
      .expect(201);
    const revoked = await api().post(`/api/v1/invitations/${invited.body.data.id}/revoke`).set(session(owner)).expect(200);
    expect(revoked.body.data.attributes.status).toBe('revoked');
    const token = invited.body.data.attributes.url.split('#invitation=')[1];
    await api().post('/api/v1/invitation-acceptances/options').send({ token }).expect(404);
    const admin = await joinAs(service, accountId, 'admin');
    const refused = await api()
      .post('/api/v1/invitations')
      .set(session(admin))
      .send({ invitation: { role: 'owner' } })
      .expect(403);
    expect(refused.body.errors[0].code).toBe('insufficient_scope');
    await api()
      .post('/api/v1/invitations')
      .set(session(admin))
      .send({ invitation: { role: 'designer' } })
      .expect(201);
  });

  test('a person signed in accepts an invitation to a second account as themselves, and switches between them', async () => {
    const second = await service.createAccount('Bean & Co');
    const invited = await api()
      .post(`/admin/v1/accounts/${second.accountId}/invitations`)
      .set(service.adminAuth())
      .send({ invitation: { role: 'designer' } })
      .expect(201);
    const token = invited.body.data.attributes.url.split('#invitation=')[1];
    const csrfless = await api().post('/api/v1/invitation-acceptances').set('Cookie', owner.cookie).send({ token }).expect(403);
    expect(csrfless.body.errors[0].code).toBe('csrf_refused');
    const joined = await api().post('/api/v1/invitation-acceptances').set(session(owner)).send({ token }).expect(201);
    expect(joined.body.data.attributes).toMatchObject({ accountId: second.accountId, role: 'designer' });
    expect(joined.body.data.attributes.memberships.map((m: { accountName: string; role: string }) => [m.accountName, m.role])).toEqual([
      ['Bean & Co', 'designer'],
      ['Kawiarnia Łódź', 'owner'],
    ]);
    await api().get('/api/v1/webhook-subscriptions').set(session(owner)).expect(403);
    const back = await api().patch('/api/v1/session').set(session(owner)).send({ session: { accountId } }).expect(200);
    expect(back.body.data.attributes).toMatchObject({ accountId, role: 'owner' });
    const elsewhere = await api()
      .patch('/api/v1/session')
      .set(session(owner))
      .send({ session: { accountId: (await service.createAccount()).accountId } })
      .expect(404);
    expect(elsewhere.body.errors[0].source).toEqual({ pointer: '/session/accountId' });
  });
});

describe('roles are sets of scopes, enforced by the middleware that checks keys', () => {
  const reads: Record<string, string> = {
    'templates:read': '/api/v1/pass-templates',
    'webhooks:read': '/api/v1/webhook-subscriptions',
    'audit:read': '/api/v1/audit-events',
    'members:read': '/api/v1/members',
    'scans:read': '/api/v1/scans',
    'batches:read': '/api/v1/batches',
  };
  test.each(['admin', 'designer', 'support', 'viewer'] as const)('%s reads what its scopes allow and gets 403 for the rest', async (role) => {
    const person = await joinAs(service, accountId, role);
    const got = await api().get('/api/v1/session').set(session(person)).expect(200);
    expect(new Set(got.body.data.attributes.scopes)).toEqual(new Set(ROLE_SCOPES[role]));
    for (const [scope, path] of Object.entries(reads)) {
      const res = await api().get(path).set(session(person));
      expect([scope, res.status]).toEqual([scope, ROLE_SCOPES[role].includes(scope as never) ? 200 : 403]);
    }
    const template = await api()
      .post('/api/v1/pass-templates')
      .set(session(person))
      .send({ passTemplate: { name: 'Karta lojalnościowa', passType: 'generic' } });
    expect(template.status === 403).toBe(!ROLE_SCOPES[role].includes('templates:write'));
  });

  test('the contract lists the same scopes for each role', () => {
    const scheme = JSON.parse(readFileSync('generated/openapi.json', 'utf8')).components.securitySchemes.sessionCookie.description as string;
    for (const role of ['designer', 'support'] as const) {
      const row = scheme.split('\n').find((line) => line.startsWith(`| \`${role}\``))!;
      expect(new Set([...row.matchAll(/`([a-z]+:[a-z]+)`/g)].map((m) => m[1]))).toEqual(new Set(ROLE_SCOPES[role]));
    }
  });
});

describe('members', () => {
  test('an owner changes a role, the last owner stays one, and a removed member is refused at the next request', async () => {
    const person = await joinAs(service, accountId, 'viewer', 'Zoë Müller');
    const members = await api().get('/api/v1/members').set(session(owner)).expect(200);
    const membership = members.body.data.find((m: { attributes: { personId: string } }) => m.attributes.personId === person.personId);
    expect(membership.attributes).toMatchObject({ name: 'Zoë Müller', role: 'viewer', signInMethods: ['password'], secondFactor: false });
    const changed = await api()
      .patch(`/api/v1/members/${membership.id}`)
      .set(session(owner))
      .send({ member: { role: 'support' } })
      .expect(200);
    expect(changed.body.data.attributes.role).toBe('support');
    expect((await api().get('/api/v1/session').set(session(person)).expect(200)).body.data.attributes.role).toBe('support');

    const alone = await service.createAccount('Solo');
    const soloOwner = await joinAs(service, alone.accountId, 'owner');
    const [own] = (await api().get('/api/v1/members').set(session(soloOwner)).expect(200)).body.data;
    await api()
      .patch(`/api/v1/members/${own.id}`)
      .set(session(soloOwner))
      .send({ member: { role: 'admin' } })
      .expect(409);
    await api().delete(`/api/v1/members/${own.id}`).set(session(soloOwner)).expect(409);

    await api().delete(`/api/v1/members/${membership.id}`).set(session(owner)).expect(204);
    const after = await api().get('/api/v1/passes').set(session(person)).expect(401);
    expect(after.body.errors[0].code).toBe('unauthorized');
    const events = await api().get('/api/v1/audit-events').set(session(owner)).query({ operation: 'deleteMember' }).expect(200);
    expect(events.body.data[0].attributes.actor).toMatchObject({ type: 'person', id: owner.personId, name: expect.stringContaining('Agnieszka Wróbel') });
  });
});

describe('sessions', () => {
  test('every sign-in makes a new session: a cookie the browser had is never taken over; the cookie is HttpOnly, SameSite=Lax', async () => {
    const res = await api()
      .post('/api/v1/sign-in/password')
      .set('Cookie', owner.cookie)
      .send({ email: owner.email, password: owner.password, totpCode: await totpCode(owner.totpSecret!) })
      .expect(201);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^wps_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(cookieOf(res.headers['set-cookie'])).not.toBe(owner.cookie);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('over HTTPS the cookie is __Host- and Secure', async () => {
    const secure = await startTestService({ config: { publicBaseUrl: 'https://wallet.example.com' } });
    try {
      const { accountId: id } = await secure.createAccount();
      const person = await joinAs(secure, id, 'support');
      expect(person.cookie).toMatch(/^__Host-wps_session=/);
      await supertest(secure.app).get('/api/v1/session').set('Cookie', person.cookie).expect(200);
    } finally {
      await secure.close();
    }
  });

  test('a change without the CSRF token, or any request from another site, is refused', async () => {
    const noToken = await api()
      .post('/api/v1/invitations')
      .set('Cookie', owner.cookie)
      .send({ invitation: { role: 'viewer' } })
      .expect(403);
    expect(noToken.body.errors[0]).toMatchObject({ code: 'csrf_refused', source: { header: 'X-CSRF-Token' } });
    await api()
      .post('/api/v1/invitations')
      .set({ Cookie: owner.cookie, 'X-CSRF-Token': 'A'.repeat(43) })
      .send({ invitation: { role: 'viewer' } })
      .expect(403);
    const crossSite = await api()
      .get('/api/v1/members')
      .set({ ...session(owner), 'Sec-Fetch-Site': 'cross-site' })
      .expect(403);
    expect(crossSite.body.errors[0].code).toBe('csrf_refused');
    const loginCsrf = await api()
      .post('/api/v1/sign-in/password')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ email: owner.email, password: owner.password })
      .expect(403);
    expect(loginCsrf.body.errors[0].code).toBe('csrf_refused');
    // An API key needs no CSRF token: it is not sent by browsers on their own.
    await api()
      .post('/api/v1/invitations')
      .set(service.auth(apiKey))
      .send({ invitation: { role: 'viewer' } })
      .expect(201);
  });

  test('sessions end after 30 idle minutes and 12 hours, and the person sees and ends their sessions', async () => {
    const person = await joinAs(service, accountId, 'support');
    const phone = cookieOf(
      (await api().post('/api/v1/sign-in/password').set('User-Agent', 'Phone').send({ email: person.email, password: person.password }).expect(201)).headers[
        'set-cookie'
      ],
    );
    const listed = await api().get('/api/v1/me/sessions').set(session(person)).expect(200);
    expect(listed.body.data).toHaveLength(2);
    expect(listed.body.data.filter((s: { attributes: { current: boolean } }) => s.attributes.current)).toHaveLength(1);
    const other = listed.body.data.find((s: { attributes: { current: boolean } }) => !s.attributes.current);
    expect(other.attributes).toMatchObject({ method: 'password', userAgent: 'Phone' });
    await api().delete(`/api/v1/me/sessions/${other.id}`).set(session(person)).expect(204);
    await api().get('/api/v1/session').set('Cookie', phone).expect(401);
    await api().delete(`/api/v1/me/sessions/${other.id}`).set(session(person)).expect(404);

    const tablet = cookieOf(
      (await api().post('/api/v1/sign-in/password').send({ email: person.email, password: person.password }).expect(201)).headers['set-cookie'],
    );
    await api().delete('/api/v1/me/sessions').set(session(person)).expect(204);
    await api().get('/api/v1/session').set('Cookie', tablet).expect(401);
    await api().get('/api/v1/session').set(session(person)).expect(200);

    clock.advance(29 * 60_000);
    await api().get('/api/v1/session').set(session(person)).expect(200);
    clock.advance(31 * 60_000);
    const idle = await api().get('/api/v1/session').set(session(person)).expect(401);
    expect(idle.body.errors[0].detail).toMatch(/timed out/);
    const fresh = await joinAs(service, accountId, 'viewer');
    // Busy all day, never idle for 30 minutes: the session still ends 12 hours after sign-in.
    for (let step = 1; step <= 29; step++) {
      clock.advance(25 * 60_000);
      await api()
        .get('/api/v1/session')
        .set(session(fresh))
        .expect(step * 25 < 12 * 60 ? 200 : 401);
    }
  });

  (testDatabaseKind() === 'postgresql' ? test : test.skip)('a session ended on one node is refused by another at its next request', async () => {
    const other = await service.anotherNode({ clock });
    try {
      const person = await joinAs(service, accountId, 'viewer');
      await supertest(other.app).get('/api/v1/session').set(session(person)).expect(200);
      await api().delete('/api/v1/session').set(session(person)).expect(204);
      await supertest(other.app).get('/api/v1/session').set(session(person)).expect(401);
    } finally {
      await other.close();
    }
  });

  test('sign-out clears the cookie; a person changes their password with the current one, ending their other sessions', async () => {
    const person = await joinAs(service, accountId, 'designer');
    const elsewhere = cookieOf(
      (await api().post('/api/v1/sign-in/password').send({ email: person.email, password: person.password }).expect(201)).headers['set-cookie'],
    );
    const wrong = await api()
      .put('/api/v1/me/password')
      .set(session(person))
      .send({ currentPassword: 'not it at all', password: 'a new long password' })
      .expect(400);
    expect(wrong.body.errors[0].source).toEqual({ pointer: '/currentPassword' });
    await api().put('/api/v1/me/password').set(session(person)).send({ currentPassword: person.password, password: 'a new long password' }).expect(204);
    await api().get('/api/v1/session').set('Cookie', elsewhere).expect(401);
    await api().post('/api/v1/sign-in/password').send({ email: person.email, password: person.password }).expect(401);
    const out = await api().delete('/api/v1/session').set(session(person)).expect(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^wps_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/);
    await api().get('/api/v1/session').set(session(person)).expect(401);
  });
});

describe('sign-in', () => {
  test('after 10 failures an address is locked for the rest of 15 minutes, even with the right password', async () => {
    const person = await joinAs(service, accountId, 'support');
    for (let i = 0; i < 10; i++)
      await api()
        .post('/api/v1/sign-in/password')
        .send({ email: person.email, password: `wrong ${i}` })
        .expect(401);
    const locked = await api().post('/api/v1/sign-in/password').send({ email: person.email, password: person.password }).expect(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // An unknown address is locked the same way: the lockout tells nothing of who exists.
    for (let i = 0; i < 10; i++) await api().post('/api/v1/sign-in/password').send({ email: 'nobody@example.com', password: 'x' }).expect(401);
    await api().post('/api/v1/sign-in/password').send({ email: 'nobody@example.com', password: 'x' }).expect(429);
  });

  test('a client address is locked after AUTH_FAILURES_PER_MINUTE failed sign-ins, whatever addresses it tried', async () => {
    const guarded = await startTestService({ config: { authFailuresPerMinute: 3 } });
    try {
      const { accountId: id } = await guarded.createAccount();
      const person = await joinAs(guarded, id, 'viewer');
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com'])
        await supertest(guarded.app).post('/api/v1/sign-in/password').send({ email, password: 'guess' }).expect(401);
      const locked = await supertest(guarded.app).post('/api/v1/sign-in/password').send({ email: person.email, password: person.password }).expect(429);
      expect(locked.body.errors[0].code).toBe('rate_limited');
      const passkey = await supertest(guarded.app)
        .post('/api/v1/sign-in/passkey')
        .send({ challengeId: '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10', credential: { id: 'x', rawId: 'x', type: 'public-key', response: {} } });
      expect(passkey.status).toBe(429);
    } finally {
      await guarded.close();
    }
  });

  test('passkey sign-in and registration refuse what does not verify', async () => {
    const options = await api().post('/api/v1/sign-in/passkey-options').expect(201);
    expect(options.body.data.attributes.publicKey).toMatchObject({ rpId: 'wallet.test', userVerification: 'preferred', allowCredentials: [] });
    const answer = { id: 'dW5rbm93bg', rawId: 'dW5rbm93bg', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' } };
    const unknown = await api().post('/api/v1/sign-in/passkey').send({ challengeId: options.body.data.id, credential: answer }).expect(401);
    expect(unknown.body.errors[0].code).toBe('sign_in_failed');
    // The challenge was used by that attempt.
    await api().post('/api/v1/sign-in/passkey').send({ challengeId: options.body.data.id, credential: answer }).expect(401);
    const person = await joinAs(service, accountId, 'designer');
    const registration = await api().post('/api/v1/me/passkey-options').set(session(person)).expect(201);
    expect(registration.body.data.attributes.publicKey).toMatchObject({ rp: { id: 'wallet.test' }, user: { name: person.email } });
    const bad = await api()
      .post('/api/v1/me/passkeys')
      .set(session(person))
      .send({ challengeId: registration.body.data.id, name: 'Phone', credential: answer })
      .expect(400);
    expect(bad.body.errors[0].source).toEqual({ pointer: '/credential' });
    // Another person's challenge is refused as unknown.
    const others = await api().post('/api/v1/me/passkey-options').set(session(person)).expect(201);
    const stranger = await joinAs(service, accountId, 'viewer');
    const notYours = await api()
      .post('/api/v1/me/passkeys')
      .set(session(stranger))
      .send({ challengeId: others.body.data.id, name: 'Phone', credential: answer })
      .expect(400);
    expect(notYours.body.errors[0].source).toEqual({ pointer: '/challengeId' });
    expect((await api().get('/api/v1/me/passkeys').set(session(person)).expect(200)).body.data).toEqual([]);
    await api().delete('/api/v1/me/passkeys/0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10').set(session(person)).expect(404);
  });

  test('no password, TOTP secret or session token reaches the logs or the audit log', async () => {
    const events = await service.runtime.db.sql.$queryRaw<{ changes: unknown; actor_name: string }[]>`SELECT changes, actor_name FROM audit_events`;
    const stored = JSON.stringify(events);
    const logs = service.logText();
    for (const secret of [owner.password, owner.totpSecret!, owner.cookie.split('=')[1]!, 'correct horse battery staple', 'Пароль довгий 2026']) {
      expect(stored).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    expect(stored).toContain('[secret]');
  });
});

describe('invitation e-mail', () => {
  test('with SMTP_URL the link is sent to the invited address (a local SMTP server records it); without, nothing is sent', async () => {
    const received: { to: string[]; text: string }[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, smtpSession, callback) {
        let text = '';
        stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push({ to: smtpSession.envelope.rcptTo.map((r) => r.address), text });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    const mailing = await startTestService({ config: { smtpUrl: `smtp://127.0.0.1:${port}`, smtpFrom: 'Kawiarnia <no-reply@wallet.test>' } });
    try {
      const { accountId: id } = await mailing.createAccount('Kawiarnia Łódź');
      const invited = await supertest(mailing.app)
        .post(`/admin/v1/accounts/${id}/invitations`)
        .set(mailing.adminAuth())
        .send({ invitation: { role: 'owner', email: 'agnieszka@example.pl' } })
        .expect(201);
      expect(invited.body.meta).toEqual({ emailSent: true });
      expect(received).toHaveLength(1);
      expect(received[0]!.to).toEqual(['agnieszka@example.pl']);
      // The body is quoted-printable (RFC 2045 §6.7): soft line breaks and =XX octets.
      const decoded = Buffer.from(
        received[0]!.text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
        'latin1',
      ).toString('utf8');
      expect(decoded).toContain(invited.body.data.attributes.url);
      expect(decoded).toContain('to work in Kawiarnia Łódź as owner');
      expect(decoded).toMatch(/Subject: =\?UTF-8\?Q\?You_are_invited_to_/);
      // No address, no e-mail.
      const linkOnly = await supertest(mailing.app)
        .post(`/admin/v1/accounts/${id}/invitations`)
        .set(mailing.adminAuth())
        .send({ invitation: { role: 'viewer' } })
        .expect(201);
      expect(linkOnly.body.meta).toEqual({ emailSent: false });
      expect(received).toHaveLength(1);
    } finally {
      await mailing.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});
