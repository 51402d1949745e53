/**
 * Reader configuration (spec §2.6, §4.9): getReaderConfiguration through HTTP, the
 * administration operations that rotate its keys and change its settings, secrets encrypted at
 * rest (src/security/secrets.ts), and where the secrets key comes from (SECRETS_KEY, the
 * generated `<DATA_DIR>/secrets-key`, or a refusal to start on PostgreSQL).
 */
import { spawn } from 'node:child_process';
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Response } from 'supertest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { sha256Hex } from '../src/security/apiTokens.ts';
import { resolveSecretsKey, SecretCipher, SecretDecryptionError } from '../src/security/secrets.ts';
import { startTestService, testConfig, type TestService } from './support/testService.ts';

let service: TestService;
let tenant: { accountId: string; token: string };
let other: { accountId: string; token: string };
let entityId: string;
let otherEntityId: string;

const UNKNOWN_ENTITY = '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10';
/** Every response body received, as text (secrets may appear only in getReaderConfiguration's). */
const adminResponseTexts: string[] = [];

beforeAll(async () => {
  service = await startTestService();
  tenant = await service.createAccount('Acme Coffee');
  other = await service.createAccount('Other Tenant');
  entityId = await service.createEntity(tenant.accountId, 'Soho');
  otherEntityId = await service.createEntity(other.accountId, 'Not yours');
});
afterAll(() => service.close());

async function getConfiguration(entity = entityId, token = tenant.token): Promise<Response> {
  return service.api.get(`/api/v1/entities/${entity}/readerConfiguration`).set(service.auth(token));
}

async function admin(method: 'post' | 'patch', path: string, body?: object): Promise<Response> {
  const req = service.api[method](`/admin/v1/entities/${path}`).set(service.adminAuth());
  const res = body === undefined ? await req : await req.send(body);
  adminResponseTexts.push(res.text);
  return res;
}

interface StoredSecrets {
  nfc_private_key_encrypted: Uint8Array;
  api_key_encrypted: Uint8Array;
  api_key_hash: string;
  row_text: string;
}

async function storedSecrets(entity: string): Promise<StoredSecrets> {
  const rows = await service.database.db.prisma.$queryRaw<StoredSecrets[]>`
    SELECT nfc_private_key_encrypted, api_key_encrypted, api_key_hash, r::text AS row_text
    FROM reader_configurations r WHERE entity_id = ${entity}::uuid`;
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** The base64 body of a PEM (the part that would leak if stored in clear). */
function pemBody(pem: string): string {
  return pem
    .split('\n')
    .filter((line) => line && !line.startsWith('-----'))
    .join('');
}

describe('getReaderConfiguration', () => {
  it('returns the entity’s configuration with its secrets, not cacheable', async () => {
    const res = await getConfiguration();
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { data } = res.body;
    expect(data).toMatchObject({ id: entityId, type: 'readerConfiguration' });
    expect(Object.keys(data.attributes).sort()).toEqual(
      ['applePassTypeId', 'googleCollectorId', 'googleKeyVersion', 'nfcPrivateKey', 'readerConfigurationApiKey', 'validationConfiguration'].sort(),
    );
    expect(data.attributes).toMatchObject({
      applePassTypeId: 'pass.dev.wallet-pass-service',
      googleKeyVersion: 1,
      validationConfiguration: { validationType: 'internal' },
    });
    expect(data.attributes.googleCollectorId).toMatch(/^[1-9][0-9]{7}$/);
    expect(data.attributes.readerConfigurationApiKey).toMatch(/^wpr_[A-Za-z0-9_-]{43}$/);
    expect(data.attributes.nfcPrivateKey).toMatch(/^-----BEGIN EC PRIVATE KEY-----\n[\s\S]+\n-----END EC PRIVATE KEY-----\n$/);
    const key = createPrivateKey(data.attributes.nfcPrivateKey);
    expect(key.asymmetricKeyType).toBe('ec');
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });

  it('answers the same configuration every time', async () => {
    const [a, b] = [await getConfiguration(), await getConfiguration()];
    expect(b.body).toEqual(a.body);
  });

  it('is created with the entity, in the same request', async () => {
    const fresh = await service.createEntity(tenant.accountId, 'Fresh');
    const row = await service.database.db.prisma.readerConfiguration.findUnique({ where: { entityId: fresh } });
    expect(row).toMatchObject({ entityId: fresh, accountId: tenant.accountId, googleKeyVersion: 1, validationType: 'internal' });
  });

  it('gives every entity its own keys', async () => {
    const second = await service.createEntity(tenant.accountId, 'Second');
    const [a, b] = [(await getConfiguration()).body.data.attributes, (await getConfiguration(second)).body.data.attributes];
    expect(b.nfcPrivateKey).not.toBe(a.nfcPrivateKey);
    expect(b.readerConfigurationApiKey).not.toBe(a.readerConfigurationApiKey);
  });

  it('creates the configuration on first read for an entity that has none (made before readers existed)', async () => {
    const legacy = await service.createEntity(tenant.accountId, 'Legacy');
    await service.database.db.prisma.readerConfiguration.delete({ where: { entityId: legacy } });
    const [first, second] = await Promise.all([getConfiguration(legacy), getConfiguration(legacy)]);
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(first.body.data.attributes.googleKeyVersion).toBe(1);
    expect(await service.database.db.prisma.readerConfiguration.count({ where: { entityId: legacy } })).toBe(1);
  });

  it('answers 404 for an unknown entity and for another account’s entity', async () => {
    for (const entity of [UNKNOWN_ENTITY, otherEntityId]) {
      const res = await getConfiguration(entity);
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({ code: 'not_found', detail: `No entity with id ${entity} exists.`, source: { parameter: 'entity_id' } });
    }
  });

  it('answers 400 for an entity id that is not a UUID, and 401 without an API key', async () => {
    const bad = await getConfiguration('soho');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].source).toEqual({ parameter: 'entity_id' });
    await service.api.get(`/api/v1/entities/${entityId}/readerConfiguration`).expect(401);
  });
});

describe('secrets at rest', () => {
  it('stores the NFC private key and the API key only encrypted, bound to their entity', async () => {
    const { nfcPrivateKey, readerConfigurationApiKey } = (await getConfiguration()).body.data.attributes;
    const stored = await storedSecrets(entityId);
    for (const secret of [nfcPrivateKey, pemBody(nfcPrivateKey), readerConfigurationApiKey, readerConfigurationApiKey.slice(4)]) {
      expect(stored.row_text).not.toContain(secret);
      expect(Buffer.from(stored.nfc_private_key_encrypted).includes(Buffer.from(secret))).toBe(false);
      expect(Buffer.from(stored.api_key_encrypted).includes(Buffer.from(secret))).toBe(false);
    }
    expect(Buffer.from(stored.api_key_encrypted).toString('latin1')).not.toContain('wpr_');
    expect(Buffer.from(stored.nfc_private_key_encrypted).toString('latin1')).not.toContain('PRIVATE KEY');
    expect(stored.api_key_hash).toBe(sha256Hex(readerConfigurationApiKey));

    // The service's key opens them; another key, or the context of another entity, does not.
    const cipher = new SecretCipher(service.secretsKey);
    expect(cipher.decrypt(stored.nfc_private_key_encrypted, `readerConfiguration/${entityId}/nfcPrivateKey`)).toBe(nfcPrivateKey);
    expect(cipher.decrypt(stored.api_key_encrypted, `readerConfiguration/${entityId}/readerConfigurationApiKey`)).toBe(readerConfigurationApiKey);
    expect(() => new SecretCipher(randomBytes(32)).decrypt(stored.api_key_encrypted, `readerConfiguration/${entityId}/readerConfigurationApiKey`)).toThrow(
      SecretDecryptionError,
    );
    expect(() => cipher.decrypt(stored.api_key_encrypted, `readerConfiguration/${otherEntityId}/readerConfigurationApiKey`)).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt(stored.api_key_encrypted, `readerConfiguration/${entityId}/nfcPrivateKey`)).toThrow(SecretDecryptionError);
  });

  it('detects altered ciphertexts and seals the same value differently each time', () => {
    const cipher = new SecretCipher(randomBytes(32));
    const [a, b] = [cipher.encrypt('secret', 'ctx'), cipher.encrypt('secret', 'ctx')];
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    const altered = Uint8Array.from(a);
    altered[altered.length - 1]! ^= 1;
    expect(() => cipher.decrypt(altered, 'ctx')).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt(new Uint8Array([2, 0, 0]), 'ctx')).toThrow(/not in a known format/);
    expect(() => new SecretCipher(randomBytes(16))).toThrow(RangeError);
  });

  it('answers 500 without details when a stored secret cannot be decrypted', async () => {
    const broken = await service.createEntity(tenant.accountId, 'Broken');
    await service.database.db.prisma.$executeRaw`
      UPDATE reader_configurations SET api_key_encrypted = ${Uint8Array.from(new SecretCipher(randomBytes(32)).encrypt('x', 'y'))}
      WHERE entity_id = ${broken}::uuid`;
    const res = await getConfiguration(broken);
    expect(res.status).toBe(500);
    expect(res.body.errors[0].code).toBe('internal_error');
    expect(res.text).not.toContain('SECRETS_KEY');
  });

  it('never writes a secret to the log', async () => {
    const { nfcPrivateKey, readerConfigurationApiKey } = (await getConfiguration()).body.data.attributes;
    const logText = service.logText();
    expect(logText).not.toContain(readerConfigurationApiKey);
    expect(logText).not.toContain(pemBody(nfcPrivateKey).slice(0, 40));
    expect(logText).not.toContain('PRIVATE KEY');
  });
});

describe('rotateReaderNfcKey', () => {
  it('replaces the key pair, increases googleKeyVersion and shows only the new public key', async () => {
    const before = (await getConfiguration()).body.data.attributes;
    const res = await admin('post', `${entityId}/readerConfiguration/rotate-nfc-key`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: entityId,
      type: 'readerConfiguration',
      attributes: {
        googleKeyVersion: before.googleKeyVersion + 1,
        googleCollectorId: before.googleCollectorId,
        validationConfiguration: before.validationConfiguration,
      },
    });
    const after = (await getConfiguration()).body.data.attributes;
    expect(after.googleKeyVersion).toBe(before.googleKeyVersion + 1);
    expect(after.nfcPrivateKey).not.toBe(before.nfcPrivateKey);
    expect(after.readerConfigurationApiKey).toBe(before.readerConfigurationApiKey);
    expect(res.body.data.attributes.nfcPublicKey).toBe(createPublicKey(after.nfcPrivateKey).export({ type: 'spki', format: 'pem' }));
    expect(res.body.data.attributes.nfcPublicKey).not.toBe(createPublicKey(before.nfcPrivateKey).export({ type: 'spki', format: 'pem' }));

    const again = await admin('post', `${entityId}/readerConfiguration/rotate-nfc-key`);
    expect(again.body.data.attributes.googleKeyVersion).toBe(before.googleKeyVersion + 2);
  });

  it('works on an entity without a configuration yet (version 1 made, then rotated to 2)', async () => {
    const legacy = await service.createEntity(tenant.accountId, 'Legacy rotate');
    await service.database.db.prisma.readerConfiguration.delete({ where: { entityId: legacy } });
    const res = await admin('post', `${legacy}/readerConfiguration/rotate-nfc-key`);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.googleKeyVersion).toBe(2);
  });
});

describe('rotateReaderApiKey', () => {
  it('replaces the API key without touching the NFC key or its version', async () => {
    const before = (await getConfiguration()).body.data.attributes;
    const res = await admin('post', `${entityId}/readerConfiguration/rotate-api-key`);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.googleKeyVersion).toBe(before.googleKeyVersion);
    const after = (await getConfiguration()).body.data.attributes;
    expect(after.readerConfigurationApiKey).toMatch(/^wpr_[A-Za-z0-9_-]{43}$/);
    expect(after.readerConfigurationApiKey).not.toBe(before.readerConfigurationApiKey);
    expect(after.nfcPrivateKey).toBe(before.nfcPrivateKey);
    expect((await storedSecrets(entityId)).api_key_hash).toBe(sha256Hex(after.readerConfigurationApiKey));
    expect(res.text).not.toContain(after.readerConfigurationApiKey);
  });
});

describe('updateReaderConfiguration', () => {
  it('sets the Google collector id', async () => {
    const res = await admin('patch', `${entityId}/readerConfiguration`, { readerConfiguration: { googleCollectorId: '01234567' } });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.googleCollectorId).toBe('01234567');
    expect((await getConfiguration()).body.data.attributes.googleCollectorId).toBe('01234567');
  });

  it('switches to external validation with its URL and back to internal (the URL is dropped)', async () => {
    const external = { validationType: 'external', url: 'https://validation.example.com/scans' };
    const res = await admin('patch', `${entityId}/readerConfiguration`, { readerConfiguration: { validationConfiguration: external } });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ validationConfiguration: external, googleCollectorId: '01234567' });
    expect((await getConfiguration()).body.data.attributes.validationConfiguration).toEqual(external);

    const back = await admin('patch', `${entityId}/readerConfiguration`, { readerConfiguration: { validationConfiguration: { validationType: 'internal' } } });
    expect(back.body.data.attributes.validationConfiguration).toEqual({ validationType: 'internal' });
    const row = await service.database.db.prisma.readerConfiguration.findUniqueOrThrow({ where: { entityId } });
    expect(row).toMatchObject({ validationType: 'internal', externalValidationUrl: null });
  });

  it.each([
    ['an empty change', { readerConfiguration: {} }],
    ['no readerConfiguration', {}],
    ['a 7-digit collector id', { readerConfiguration: { googleCollectorId: '1234567' } }],
    ['a collector id with letters', { readerConfiguration: { googleCollectorId: '1234567a' } }],
    ['external validation without a URL', { readerConfiguration: { validationConfiguration: { validationType: 'external' } } }],
    ['an ftp URL', { readerConfiguration: { validationConfiguration: { validationType: 'external', url: 'ftp://example.com/x' } } }],
    ['internal validation with a URL', { readerConfiguration: { validationConfiguration: { validationType: 'internal', url: 'https://x.example' } } }],
    ['an unknown validation type', { readerConfiguration: { validationConfiguration: { validationType: 'none' } } }],
    ['a secret', { readerConfiguration: { readerConfigurationApiKey: 'wpr_mine' } }],
  ])('refuses %s with 400', async (_case, body) => {
    const res = await admin('patch', `${entityId}/readerConfiguration`, body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('validation_failed');
  });
});

describe('administration operations (all three)', () => {
  const operations: [method: 'post' | 'patch', suffix: string, body?: object][] = [
    ['patch', 'readerConfiguration', { readerConfiguration: { googleCollectorId: '12345678' } }],
    ['post', 'readerConfiguration/rotate-nfc-key'],
    ['post', 'readerConfiguration/rotate-api-key'],
  ];

  it('answer 404 for an unknown entity', async () => {
    for (const [method, suffix, body] of operations) {
      const res = await admin(method, `${UNKNOWN_ENTITY}/${suffix}`, body);
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({ code: 'not_found', source: { parameter: 'entityId' } });
    }
  });

  it('answer 401 without the administration token or with an API key', async () => {
    for (const [method, suffix, body] of operations) {
      const path = `/admin/v1/entities/${entityId}/${suffix}`;
      expect((await service.api[method](path).send(body)).status).toBe(401);
      expect((await service.api[method](path).set(service.auth(tenant.token)).send(body)).status).toBe(401);
    }
  });

  it('never answer with a secret', () => {
    expect(adminResponseTexts.length).toBeGreaterThan(10);
    for (const text of adminResponseTexts) {
      expect(text).not.toContain('PRIVATE KEY');
      expect(text).not.toMatch(/wpr_[A-Za-z0-9_-]{43}/);
    }
  });
});

describe('APPLE_PASS_TYPE_ID', () => {
  it('is answered as applePassTypeId', async () => {
    const custom = await startTestService({ config: { applePassTypeId: 'pass.com.example.loyalty' } });
    try {
      const account = await custom.createAccount();
      const entity = await custom.createEntity(account.accountId);
      const res = await custom.api.get(`/api/v1/entities/${entity}/readerConfiguration`).set(custom.auth(account.token)).expect(200);
      expect(res.body.data.attributes.applePassTypeId).toBe('pass.com.example.loyalty');
    } finally {
      await custom.close();
    }
  });

  it('defaults to pass.dev.wallet-pass-service and must look like a pass type id', () => {
    expect(loadConfig({}).applePassTypeId).toBe('pass.dev.wallet-pass-service');
    expect(loadConfig({ APPLE_PASS_TYPE_ID: 'pass.com.example.loyalty' }).applePassTypeId).toBe('pass.com.example.loyalty');
    expect(() => loadConfig({ APPLE_PASS_TYPE_ID: 'com.example.loyalty' })).toThrow(/APPLE_PASS_TYPE_ID/);
  });
});

describe('the secrets key', () => {
  const key = randomBytes(32);

  it('reads SECRETS_KEY as 64 hex digits, base64 or base64url, and refuses anything else without echoing it', () => {
    for (const text of [key.toString('hex'), key.toString('base64'), key.toString('base64url'), ` ${key.toString('base64')}\n`]) {
      expect(loadConfig({ SECRETS_KEY: text }).secretsKey?.equals(key)).toBe(true);
    }
    expect(loadConfig({}).secretsKey).toBeUndefined();
    for (const bad of ['too-short', randomBytes(16).toString('hex'), randomBytes(31).toString('base64'), 'g'.repeat(64)]) {
      let error: unknown;
      try {
        loadConfig({ SECRETS_KEY: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain('SECRETS_KEY must be 32 bytes');
      expect((error as Error).message).not.toContain(bad);
    }
  });

  function captureLogger() {
    const lines: string[] = [];
    const sink = new Writable({
      write: (chunk, _enc, done) => {
        lines.push(String(chunk));
        done();
      },
    });
    return { logger: createLogger('info', sink), text: () => lines.join('') };
  }

  it('uses SECRETS_KEY when set', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'wps-secrets-'));
    const { logger } = captureLogger();
    expect((await resolveSecretsKey(testConfig({ secretsKey: key, dataDir, databaseUrl: 'postgresql://x/y' }), logger)).equals(key)).toBe(true);
    await expect(stat(join(dataDir, 'secrets-key'))).rejects.toThrow(/ENOENT/);
  });

  it('generates <DATA_DIR>/secrets-key (mode 0600) on the embedded default and reuses it', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'wps-secrets-')), 'data');
    const { logger, text } = captureLogger();
    const first = await resolveSecretsKey(testConfig({ dataDir }), logger);
    const file = join(dataDir, 'secrets-key');
    expect(first).toHaveLength(32);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(first.toString('base64'));
    expect((await resolveSecretsKey(testConfig({ dataDir }), logger)).equals(first)).toBe(true);
    expect(text()).toContain(file);
    expect(text()).not.toContain(first.toString('base64'));
  });

  it('refuses a key file that holds no key', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'wps-secrets-'));
    await writeFile(join(dataDir, 'secrets-key'), 'not a key\n');
    await expect(resolveSecretsKey(testConfig({ dataDir }), captureLogger().logger)).rejects.toThrow(/does not hold a secrets key/);
  });

  it('refuses PostgreSQL without SECRETS_KEY', async () => {
    await expect(resolveSecretsKey(testConfig({ databaseUrl: 'postgresql://127.0.0.1/x' }), captureLogger().logger)).rejects.toThrow(
      /SECRETS_KEY is required with DATABASE_URL/,
    );
  });

  it('stops the server with exit code 2 and a clear message on PostgreSQL without SECRETS_KEY', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        DATABASE_URL: 'postgresql://127.0.0.1:1/never',
        PUBLIC_BASE_URL: 'https://wallet.example.com',
        DATA_DIR: await mkdtemp(join(tmpdir(), 'wps-data-')),
      },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('Configuration error: SECRETS_KEY is required with DATABASE_URL');
  }, 30_000);
});
