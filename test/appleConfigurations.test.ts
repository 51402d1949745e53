/**
 * Apple configurations (administration API): setAppleConfiguration, getAppleConfiguration,
 * listAppleConfigurations and deleteAppleConfiguration through HTTP on a real database. Every
 * check of the upload answers 422 with its code and the member at fault; keys and passphrases
 * are never returned or logged.
 */
import { createPrivateKey } from 'node:crypto';
import { createDevelopmentCertificates } from '../src/wallet/apple/developmentCertificates.ts';
import { PASS_TYPE_ID, TEAM_ID, testCertificates } from './support/appleCredentials.ts';
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

const path = (passTypeIdentifier = PASS_TYPE_ID, account = accountId) => `/admin/v1/accounts/${account}/apple-configurations/${passTypeIdentifier}`;
const pemBody = (overrides: Record<string, unknown> = {}) => {
  const chain = testCertificates();
  return {
    appleConfiguration: {
      teamIdentifier: TEAM_ID,
      organizationName: 'Coffee Club',
      certificate: chain.certificatePem,
      privateKey: chain.privateKeyPem,
      wwdrCertificate: chain.wwdrCertificatePem,
      ...overrides,
    },
  };
};
/** The test chain's private key encrypted with `passphrase` (AES-256-CBC), as PKCS#8 or legacy PKCS#1 PEM. */
const encryptedKey = (passphrase: string, type: 'pkcs8' | 'pkcs1' = 'pkcs8') =>
  createPrivateKey(testCertificates().privateKeyPem).export({ type, format: 'pem', cipher: 'aes-256-cbc', passphrase }) as string;
const put = (body: unknown, passTypeIdentifier = PASS_TYPE_ID, account = accountId) =>
  service.api
    .put(path(passTypeIdentifier, account))
    .set(service.adminAuth())
    .send(body as object);

describe('setAppleConfiguration', () => {
  it('stores PEM credentials (201), shows what it read and never the key', async () => {
    const res = await put(pemBody()).expect(201);
    const { attributes } = res.body.data;
    expect(res.body.data).toMatchObject({ id: PASS_TYPE_ID, type: 'appleConfiguration' });
    expect(attributes).toMatchObject({
      passTypeIdentifier: PASS_TYPE_ID,
      teamIdentifier: TEAM_ID,
      organizationName: 'Coffee Club',
      isDefault: true,
      certificate: { subject: { uid: PASS_TYPE_ID, ou: TEAM_ID, cn: `Pass Type ID: ${PASS_TYPE_ID}` }, expiresSoon: false },
      wwdrCertificate: { isAppleWwdrG4: false },
      push: { status: 'ok', detail: null, at: null },
    });
    expect(attributes.certificate.sha256Fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(attributes.certificate.notAfter) - Date.now()).toBeGreaterThan(300 * 24 * 3600 * 1000);
    const text = JSON.stringify(res.body) + service.logText();
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(testCertificates().privateKeyPem.split('\n')[1]);
    // Sealed at rest: the column holds no PEM.
    const row = await service.database.db.prisma.appleConfiguration.findFirstOrThrow({ where: { accountId } });
    expect(Buffer.from(row.privateKeyEncrypted).toString('latin1')).not.toContain('PRIVATE KEY');
  });

  it('replaces the credentials of a pass type (200) and keeps it the default', async () => {
    const res = await put(pemBody({ organizationName: 'Coffee Club Ltd' })).expect(200);
    expect(res.body.data.attributes).toMatchObject({ organizationName: 'Coffee Club Ltd', isDefault: true });
  });

  it('takes an encrypted key with its passphrase, and never shows or logs the passphrase', async () => {
    const res = await put(pemBody({ privateKey: encryptedKey('correct horse'), privateKeyPassphrase: 'correct horse' })).expect(200);
    expect(res.body.data.attributes.certificate.subject.uid).toBe(PASS_TYPE_ID);
    expect(JSON.stringify(res.body) + service.logText()).not.toContain('correct horse');
  });

  it('takes a .p12 file with its passphrase, its organisation named in any script', async () => {
    const chain = createDevelopmentCertificates({ passTypeIdentifier: 'pass.com.example.tickets', teamIdentifier: TEAM_ID, organizationName: '星珈琲 Ζωή' });
    const res = await put(
      {
        appleConfiguration: {
          teamIdentifier: TEAM_ID,
          organizationName: 'Tickets',
          p12: chain.p12('s3cret').toString('base64'),
          p12Passphrase: 's3cret',
          wwdrCertificate: chain.wwdrCertificatePem,
        },
      },
      'pass.com.example.tickets',
    ).expect(201);
    expect(res.body.data.attributes).toMatchObject({ passTypeIdentifier: 'pass.com.example.tickets', isDefault: false });
    expect(res.body.data.attributes.certificate.subject.o).toBe('星珈琲 Ζωή');
    expect(service.logText()).not.toContain('s3cret');
  });

  describe('refuses credentials that cannot sign passes, with 422 naming the check and the member', () => {
    const chain = () => testCertificates();
    const cases: [string, () => { body: unknown; passTypeIdentifier?: string }, string, string][] = [
      [
        'a certificate of another pass type',
        () => ({ body: pemBody(), passTypeIdentifier: 'pass.com.example.other' }),
        'wrong_pass_type_identifier',
        '/appleConfiguration/certificate',
      ],
      [
        'a certificate of another team',
        () => ({ body: pemBody({ teamIdentifier: 'ZZZZZ99999' }) }),
        'wrong_team_identifier',
        '/appleConfiguration/certificate',
      ],
      [
        'an expired certificate',
        () => {
          const old = createDevelopmentCertificates({
            passTypeIdentifier: PASS_TYPE_ID,
            teamIdentifier: TEAM_ID,
            organizationName: 'Old',
            notBefore: new Date('2020-01-01'),
            notAfter: new Date('2021-01-01'),
          });
          return { body: pemBody({ certificate: old.certificatePem, privateKey: old.privateKeyPem, wwdrCertificate: old.wwdrCertificatePem }) };
        },
        'expired',
        '/appleConfiguration/certificate',
      ],
      [
        'a key that is not the certificate’s',
        () => ({
          body: pemBody({
            privateKey: createDevelopmentCertificates({ passTypeIdentifier: PASS_TYPE_ID, teamIdentifier: TEAM_ID, organizationName: 'x' }).privateKeyPem,
          }),
        }),
        'key_mismatch',
        '/appleConfiguration/privateKey',
      ],
      [
        'something that is not a certificate',
        () => ({ body: pemBody({ certificate: `-----BEGIN CERTIFICATE-----\n${'A'.repeat(80)}\n-----END CERTIFICATE-----\n` }) }),
        'certificate_unreadable',
        '/appleConfiguration/certificate',
      ],
      [
        'a wrong .p12 passphrase',
        () => ({
          body: {
            appleConfiguration: {
              teamIdentifier: TEAM_ID,
              organizationName: 'x',
              p12: chain().p12('right').toString('base64'),
              p12Passphrase: 'wrong',
              wwdrCertificate: chain().wwdrCertificatePem,
            },
          },
        }),
        'wrong_passphrase',
        '/appleConfiguration/p12Passphrase',
      ],
      [
        'an encrypted key without its passphrase',
        () => ({ body: pemBody({ privateKey: encryptedKey('s3cret', 'pkcs8') }) }),
        'wrong_passphrase',
        '/appleConfiguration/privateKeyPassphrase',
      ],
      [
        'an encrypted PKCS#1 key (Proc-Type: 4,ENCRYPTED) without its passphrase',
        () => ({ body: pemBody({ privateKey: encryptedKey('s3cret', 'pkcs1') }) }),
        'wrong_passphrase',
        '/appleConfiguration/privateKeyPassphrase',
      ],
      [
        'an encrypted key with a wrong passphrase',
        () => ({ body: pemBody({ privateKey: encryptedKey('s3cret', 'pkcs8'), privateKeyPassphrase: 'wrong' }) }),
        'wrong_passphrase',
        '/appleConfiguration/privateKeyPassphrase',
      ],
      [
        'a WWDR certificate that did not issue it',
        () => ({
          body: pemBody({
            wwdrCertificate: createDevelopmentCertificates({ passTypeIdentifier: PASS_TYPE_ID, teamIdentifier: TEAM_ID, organizationName: 'x' })
              .wwdrCertificatePem,
          }),
        }),
        'chain_not_wwdr',
        '/appleConfiguration/wwdrCertificate',
      ],
      [
        'a certificate without Apple’s Pass Type ID extensions',
        () => {
          const plain = createDevelopmentCertificates({
            passTypeIdentifier: PASS_TYPE_ID,
            teamIdentifier: TEAM_ID,
            organizationName: 'x',
            passTypeExtensions: false,
          });
          return { body: pemBody({ certificate: plain.certificatePem, privateKey: plain.privateKeyPem, wwdrCertificate: plain.wwdrCertificatePem }) };
        },
        'not_pass_type_certificate',
        '/appleConfiguration/certificate',
      ],
      [
        'the WWDR certificate given as the pass certificate',
        () => ({ body: pemBody({ certificate: chain().wwdrCertificatePem }) }),
        'wrong_pass_type_identifier',
        '/appleConfiguration/certificate',
      ],
    ];
    it.each(cases)('%s', async (_name, make, code, pointer) => {
      const { body, passTypeIdentifier } = make();
      const res = await put(body, passTypeIdentifier);
      expectError(res, 422, code, { pointer });
      expect(res.body.errors[0].detail.length).toBeGreaterThan(20);
    });

    it('a WWDR certificate that is not Apple’s G4 when development certificates are not allowed', async () => {
      const strict = await startTestService({ config: { appleAllowDevelopmentCertificates: false } });
      try {
        const { accountId: strictAccount } = await strict.createAccount();
        const res = await strict.api.put(path(PASS_TYPE_ID, strictAccount)).set(strict.adminAuth()).send(pemBody());
        expectError(res, 422, 'wwdr_not_apple_g4', { pointer: '/appleConfiguration/wwdrCertificate' });
        expect(res.body.errors[0].detail).toContain('ea4757885538dd8cb59ff4556f676087d83c85e70902c122e42c0808b5bce14c');
      } finally {
        await strict.close();
      }
    });
  });

  it('refuses both or neither of the PEM pair and p12 with 400', async () => {
    const chain = testCertificates();
    expectError(
      await put({ appleConfiguration: { teamIdentifier: TEAM_ID, organizationName: 'x', wwdrCertificate: chain.wwdrCertificatePem } }),
      400,
      'validation_failed',
      { pointer: '/appleConfiguration/certificate' },
    );
    expectError(await put(pemBody({ p12: chain.p12('x').toString('base64') })), 400, 'validation_failed', { pointer: '/appleConfiguration/p12' });
  });

  it('answers 404 for an unknown account', async () => {
    expectError(await put(pemBody(), PASS_TYPE_ID, UNKNOWN_ID), 404, 'not_found', { parameter: 'accountId' });
  });
});

describe('getAppleConfiguration, listAppleConfigurations, deleteAppleConfiguration', () => {
  it('lists the configurations, the default first, and shows one', async () => {
    const list = await service.api.get(`/admin/v1/accounts/${accountId}/apple-configurations`).set(service.adminAuth()).expect(200);
    expect(list.body.data.map((c: { id: string; attributes: { isDefault: boolean } }) => [c.id, c.attributes.isDefault])).toEqual([
      [PASS_TYPE_ID, true],
      ['pass.com.example.tickets', false],
    ]);
    const one = await service.api.get(path('pass.com.example.tickets')).set(service.adminAuth()).expect(200);
    expect(one.body.data.attributes.organizationName).toBe('Tickets');
  });

  it('answers 404 for a pass type the account has not configured, and for an unknown account', async () => {
    expectError(await service.api.get(path('pass.com.example.none')).set(service.adminAuth()), 404, 'not_found', { parameter: 'passTypeIdentifier' });
    expectError(await service.api.get(`/admin/v1/accounts/${UNKNOWN_ID}/apple-configurations`).set(service.adminAuth()), 404, 'not_found', {
      parameter: 'accountId',
    });
  });

  it('deletes a configuration (204); the next oldest becomes the default', async () => {
    await service.api.delete(path()).set(service.adminAuth()).expect(204);
    expectError(await service.api.delete(path()).set(service.adminAuth()), 404, 'not_found', { parameter: 'passTypeIdentifier' });
    const one = await service.api.get(path('pass.com.example.tickets')).set(service.adminAuth()).expect(200);
    expect(one.body.data.attributes.isDefault).toBe(true);
  });

  it('needs the administration token', async () => {
    const { token } = await service.createAccount();
    await service.api.get(`/admin/v1/accounts/${accountId}/apple-configurations`).set(service.auth(token)).expect(401);
  });
});
