/**
 * Rotation of SECRETS_KEY (`npm run admin -- secrets rotate`, src/admin/secretsRotation.ts), on
 * the embedded database and on PostgreSQL: the rotation runs as its own process, is killed with
 * SIGKILL half-way, the service runs meanwhile with the new key and the old one for reading, the
 * rotation is run again and completes, and then every sealed value opens with the new key alone
 * and the API still answers with the same secrets: the reader configuration's keys, an Apple pass
 * signed with the stored private key, the Apple web service accepting the pass's stored
 * authentication token, the webhook signing secret, the Google service account key. One value
 * was sealed in the format written before rotation existed (format 1, no key id) and is
 * rotated too.
 */
import { spawn } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEALED_COLUMNS, countPendingSealedValues } from '../src/domain/secretRotation/sealedColumnStore.ts';
import { SecretCipher } from '../src/security/secrets.ts';
import { webhookSecretContext } from '../src/security/secretContexts.ts';
import { setAppleConfiguration } from './support/appleCredentials.ts';
import { putGoogleConfiguration } from './support/googleCredentials.ts';
import { createTemplate, issuePass, loyaltyTemplate } from './support/passes.ts';
import { inspectPkpass } from './support/pkpassInspection.ts';
import { testCertificates } from './support/appleCredentials.ts';
import { startTestService, type TestService } from './support/testService.ts';

const OLD = randomBytes(32);
const NEW = randomBytes(32);
const PASSES = 4;

/** Seals like the service did before key ids: `0x01 ‖ IV ‖ tag ‖ ciphertext`. */
function sealLegacy(key: Buffer, plaintext: string, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.of(1), iv, cipher.getAuthTag(), ciphertext]);
}

interface Rotation {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `secrets rotate` as a process on the service's database; with `killAfterBatches`, kills it
 * with SIGKILL once it reported that many batches.
 */
function rotate(service: TestService, dataDir: string, args: string[], killAfterBatches?: number): Promise<Rotation> {
  const env: Record<string, string> = {
    PATH: process.env.PATH!,
    DATA_DIR: dataDir,
    SECRETS_KEY: NEW.toString('base64'),
    SECRETS_KEY_PREVIOUS: OLD.toString('base64'),
    ...(service.database.url ? { DATABASE_URL: service.database.url, PUBLIC_BASE_URL: 'http://wallet.test' } : {}),
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', 'secrets', 'rotate', '--json', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result: Rotation = { code: null, signal: null, stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (result.stdout += d));
  child.stderr.on('data', (d) => {
    result.stderr += d;
    if (killAfterBatches && result.stderr.split('\n').filter((l) => l.startsWith('re-sealed')).length >= killAfterBatches) child.kill('SIGKILL');
  });
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      Object.assign(result, { code, signal });
      resolve(result);
    }),
  );
}

/** Stops the service's use of its database (the rotation process needs the embedded one to itself). */
async function release(service: TestService): Promise<void> {
  await service.runtime.passChangeRelay.stop();
  await service.jobs.stop();
  await service.database.db.close();
}

/** How many sealed values, over every column, the cipher does not count as its own. */
async function pending(service: TestService, cipher: SecretCipher): Promise<number> {
  let count = 0;
  for (const column of SEALED_COLUMNS) count += await countPendingSealedValues(service.database.db, column, cipher.sealedPrefix);
  return count;
}

let service: TestService;
let dataDir: string;
afterAll(async () => {
  await service?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('rotates every sealed secret in resumable batches, killed half-way and finished, and the API keeps its secrets', async () => {
  service = await startTestService({ persistent: true, secretsKey: OLD, jobs: 'work', config: { webhookAllowPrivate: true } });
  dataDir = service.database.dataDir ?? (await mkdtemp(join(tmpdir(), 'wps-rotate-')));

  // Secrets of every kind, sealed with the old key.
  const { accountId, token } = await service.createAccount();
  const entityId = await service.createEntity(accountId);
  const reader = (await service.api.get(`/api/v1/entities/${entityId}/readerConfiguration`).set(service.auth(token)).expect(200)).body.data.attributes;
  await setAppleConfiguration(service, accountId);
  await putGoogleConfiguration(service, accountId);
  const hook = await service.api
    .post('/api/v1/webhook-subscriptions')
    .set(service.auth(token))
    .send({ webhookSubscription: { url: 'http://127.0.0.1:9/hooks/rotation', scopeType: 'organisation', subscribedEvents: ['passCreated'] } })
    .expect(201);
  const templateId = await createTemplate(service, token, loyaltyTemplate());
  const passIds: string[] = [];
  for (let i = 0; i < PASSES; i++) {
    const pass = await issuePass(service, token, templateId);
    await service.api.get(`/passes/${pass.id}/apple`).expect(200); // seals the pass's authenticationToken
    passIds.push(pass.id);
  }
  // A value in the format written before rotation existed.
  const hookId = hook.body.data.id as string;
  await service.database.db.sql
    .$executeRaw`UPDATE webhook_subscriptions SET secret_encrypted = ${sealLegacy(OLD, hook.body.data.attributes.secretKey, webhookSecretContext(hookId))} WHERE id = ${hookId}::uuid`;
  const newOnly = new SecretCipher(NEW);
  const total = await pending(service, newOnly);
  expect(total).toBe(2 + 1 + 1 + 1 + PASSES);

  // Killed half-way: some values re-sealed, some not.
  await release(service);
  const killed = await rotate(service, dataDir, ['--batch-size', '1', '--pause-ms', '300'], 3);
  if (killed.signal !== 'SIGKILL') throw new Error(`the rotation was not killed: ${killed.code} ${killed.stdout} ${killed.stderr}`);
  service = await service.restart({ secretsKey: NEW, config: { secretsKeyPrevious: OLD, webhookAllowPrivate: true }, jobs: 'work' });
  const left = await pending(service, newOnly);
  expect(left).toBeGreaterThan(0);
  expect(left).toBeLessThan(total);

  // Meanwhile the service reads both keys.
  const midway = (await service.api.get(`/api/v1/entities/${entityId}/readerConfiguration`).set(service.auth(token)).expect(200)).body.data.attributes;
  expect(midway.readerConfigurationApiKey).toBe(reader.readerConfigurationApiKey);

  // Run again: it goes on and completes.
  await release(service);
  const finished = await rotate(service, dataDir, ['--batch-size', '2']);
  expect(finished.stderr).not.toContain('Error');
  expect(finished.code).toBe(0);
  const report = JSON.parse(finished.stdout).rotation;
  expect(report.remaining).toBe(0);
  expect(Object.values(report.rotated as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(left);

  // The new key alone opens everything, and the API answers with the same secrets.
  service = await service.restart({ secretsKey: NEW, config: { webhookAllowPrivate: true }, jobs: 'work' });
  expect(await pending(service, newOnly)).toBe(0);
  const after = (await service.api.get(`/api/v1/entities/${entityId}/readerConfiguration`).set(service.auth(token)).expect(200)).body.data.attributes;
  expect(after.readerConfigurationApiKey).toBe(reader.readerConfigurationApiKey);
  expect(after.nfcPrivateKey).toBe(reader.nfcPrivateKey);
  const row = await service.database.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: hookId } });
  expect(newOnly.decrypt(row.secretEncrypted, webhookSecretContext(hookId))).toBe(hook.body.data.attributes.secretKey);
  const google = await service.database.db.prisma.googleConfiguration.findFirstOrThrow({ where: { accountId } });
  expect(JSON.parse(newOnly.decrypt(google.serviceAccountKeyEncrypted, `googleConfiguration/${google.id}/serviceAccountKey`)).client_email).toBeDefined();
  // A new pass is signed with the re-sealed Apple key; an old pass's re-sealed token opens the Apple web service.
  const download = (id: string) =>
    service.api
      .get(`/passes/${id}/apple`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
  const fresh = await issuePass(service, token, templateId);
  const signed = await download(fresh.id);
  expect(signed.status).toBe(200);
  expect((await inspectPkpass(signed.body as Buffer, testCertificates().rootCertificatePem)).signatureVerified).toBe(true);
  const pass = await inspectPkpass((await download(passIds[0]!)).body as Buffer, testCertificates().rootCertificatePem);
  const passJson = pass.passJson as { authenticationToken: string; serialNumber: string; passTypeIdentifier: string };
  await service.api
    .get(`/wallet/apple/v1/passes/${passJson.passTypeIdentifier}/${passJson.serialNumber}`)
    .set('Authorization', `ApplePass ${passJson.authenticationToken}`)
    .expect(200);
}, 900_000);
