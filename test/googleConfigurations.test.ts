/**
 * Google configurations (administration API): setGoogleConfiguration, getGoogleConfiguration and
 * deleteGoogleConfiguration through HTTP on a real database, and `npm run admin -- google …`.
 * Every check of the upload answers 422 with its code and the member at fault; the key is
 * stored sealed and never returned or logged.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyFile, serviceAccountKeyPair } from './support/googleCredentials.ts';
import { expectError } from './support/passes.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let accountId: string;
const UNKNOWN_ID = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';

beforeAll(async () => {
  service = await startTestService();
  ({ accountId } = await service.createAccount());
});
afterAll(() => service.close());

const path = (account = accountId) => `/admin/v1/accounts/${account}/google-configuration`;
const put = (googleConfiguration: Record<string, unknown>, account = accountId) =>
  service.api.put(path(account)).set(service.adminAuth()).send({ googleConfiguration });
const keyLine = () => serviceAccountKeyPair().privateKey.export({ format: 'pem', type: 'pkcs8' }).toString().split('\n')[1]!;

describe('setGoogleConfiguration', () => {
  it('answers 404 on show before one is set', async () => {
    expectError(await service.api.get(path()).set(service.adminAuth()), 404, 'not_found', { parameter: 'accountId' });
  });

  it('stores the credentials (201), shows the issuer and client_email, never the key', async () => {
    const res = await put({ issuerId: ISSUER_ID, serviceAccountKey: serviceAccountKeyFile() }).expect(201);
    expect(res.body.data).toEqual({
      id: ISSUER_ID,
      type: 'googleConfiguration',
      attributes: {
        issuerId: ISSUER_ID,
        clientEmail: CLIENT_EMAIL,
        privateKeyId: '0123456789abcdef0123456789abcdef01234567',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const text = JSON.stringify(res.body) + service.logText();
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(keyLine());
    const row = await service.database.db.prisma.googleConfiguration.findUniqueOrThrow({ where: { accountId } });
    expect(Buffer.from(row.serviceAccountKeyEncrypted).toString('latin1')).not.toContain('PRIVATE KEY');
  });

  it('replaces them (200) and shows them', async () => {
    const res = await put({ issuerId: '3388000000099999999', serviceAccountKey: serviceAccountKeyFile({ private_key_id: undefined }) }).expect(200);
    expect(res.body.data.attributes).toMatchObject({ issuerId: '3388000000099999999', privateKeyId: null });
    const shown = await service.api.get(path()).set(service.adminAuth()).expect(200);
    expect(shown.body.data.attributes).toMatchObject({ issuerId: '3388000000099999999', clientEmail: CLIENT_EMAIL });
    expect(JSON.stringify(shown.body)).not.toContain(keyLine());
  });

  describe('refuses unusable credentials with 422 naming the check and the member', () => {
    const ecKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const cases: [string, () => Record<string, unknown>, string, string][] = [
      [
        'an issuer id that is not a number',
        () => ({ issuerId: 'acme', serviceAccountKey: serviceAccountKeyFile() }),
        'issuer_id_not_numeric',
        '/googleConfiguration/issuerId',
      ],
      [
        'a key that is not JSON',
        () => ({ issuerId: ISSUER_ID, serviceAccountKey: '-----BEGIN PRIVATE KEY-----' }),
        'key_not_json',
        '/googleConfiguration/serviceAccountKey',
      ],
      [
        'a key file of another type',
        () => ({ issuerId: ISSUER_ID, serviceAccountKey: serviceAccountKeyFile({ type: 'authorized_user' }) }),
        'not_service_account',
        '/googleConfiguration/serviceAccountKey',
      ],
      [
        'a client_email that is no email',
        () => ({ issuerId: ISSUER_ID, serviceAccountKey: serviceAccountKeyFile({ client_email: 'wallet' }) }),
        'client_email_invalid',
        '/googleConfiguration/serviceAccountKey',
      ],
      [
        'an unreadable private key',
        () => ({
          issuerId: ISSUER_ID,
          serviceAccountKey: serviceAccountKeyFile({ private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }),
        }),
        'private_key_unreadable',
        '/googleConfiguration/serviceAccountKey',
      ],
      [
        'a private key that is not RSA',
        () => ({ issuerId: ISSUER_ID, serviceAccountKey: serviceAccountKeyFile({ private_key: ecKey() }) }),
        'private_key_not_rsa',
        '/googleConfiguration/serviceAccountKey',
      ],
    ];
    it.each(cases)('%s', async (_name, body, code, pointer) => {
      const res = await put(body());
      expectError(res, 422, code, { pointer });
      expect(res.body.errors[0].detail.length).toBeGreaterThan(20);
      expect(JSON.stringify(res.body) + service.logText()).not.toContain(keyLine());
    });
  });

  it('answers 400 for a missing member and 404 for an unknown account', async () => {
    expectError(await put({ issuerId: ISSUER_ID }), 400, 'validation_failed', { pointer: '/googleConfiguration/serviceAccountKey' });
    expectError(await put({ issuerId: ISSUER_ID, serviceAccountKey: serviceAccountKeyFile() }, UNKNOWN_ID), 404, 'not_found', { parameter: 'accountId' });
  });
});

describe('getGoogleConfiguration, deleteGoogleConfiguration', () => {
  it('deletes the configuration (204), then answers 404', async () => {
    await service.api.delete(path()).set(service.adminAuth()).expect(204);
    expectError(await service.api.delete(path()).set(service.adminAuth()), 404, 'not_found', { parameter: 'accountId' });
    expectError(await service.api.get(path(UNKNOWN_ID)).set(service.adminAuth()), 404, 'not_found', { parameter: 'accountId' });
  });

  it('needs the administration token', async () => {
    const { token } = await service.createAccount();
    await service.api.get(path()).set(service.auth(token)).expect(401);
  });
});

describe('npm run admin -- google', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = service.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const admin = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/admin/cli.ts', ...args],
        { env: { PATH: process.env.PATH, ADMIN_URL: baseUrl, ADMIN_TOKEN: service.adminToken } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });

  it('sets, shows and deletes, printing the client_email and never the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-cli-'));
    const keyPath = join(dir, 'key.json');
    await writeFile(keyPath, serviceAccountKeyFile());
    const set = await admin(['google', 'set', '--account', accountId, '--issuer-id', ISSUER_ID, '--key', keyPath, '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ googleConfiguration: { issuerId: ISSUER_ID, clientEmail: CLIENT_EMAIL } });
    const show = await admin(['google', 'show', '--account', accountId]);
    expect(show.stdout).toContain(CLIENT_EMAIL);
    expect(show.stdout + set.stdout).not.toContain('PRIVATE KEY');
    const bad = await admin(['google', 'set', '--account', accountId, '--issuer-id', 'x1', '--key', keyPath]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('issuer id');
    expect((await admin(['google', 'delete', '--account', accountId])).code).toBe(0);
    expect((await admin(['google', 'show', '--account', accountId])).code).toBe(1);
  });
});
