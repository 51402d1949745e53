/**
 * What delivery reads and writes: the Apple devices registered for passes, with the credentials
 * of each pass type to push with; the record of every delivery attempt; and what an APNs answer
 * changes (a registration removed, a configuration marked broken). Plain SQL over the service's
 * tables; delivery knows nothing of the HTTP resources.
 *
 * @module domain/deliveryAttempts/deliveryAttemptStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { Prisma } from '../../../generated/prisma/client.ts';
import { queryRows } from '../../db/rows.ts';
import { applePrivateKeyContext } from '../../security/secretContexts.ts';
import type { SecretCipher } from '../../security/secrets.ts';
import type { ApnsCredentials, ApnsOutcome } from '../../wallet/apple/apns.ts';

/** A device to push a pass's change to. */
export interface PushTarget {
  passId: string;
  accountId: string;
  deviceId: string;
  deviceLibraryIdentifier: string;
  pushToken: string;
  passTypeIdentifier: string;
  renewedAt: Date;
  /** The Apple configuration of the pass type (null when the account no longer has one). */
  configurationId: string | null;
}

/**
 * The devices registered for these passes, with the configuration of each registration's pass
 * type.
 */
export function selectPushTargets(prisma: PrismaExecutor, passIds: string[]): Promise<PushTarget[]> {
  if (!passIds.length) return Promise.resolve([]);
  return queryRows<PushTarget>(
    prisma,
    Prisma.sql`
    SELECT r.pass_id::text AS pass_id, r.account_id::text AS account_id, d.id::text AS device_id,
           d.device_library_identifier, d.push_token,
           r.pass_type_identifier, r.renewed_at, c.id::text AS configuration_id
      FROM apple_registrations r
      JOIN apple_devices d ON d.id = r.device_id
      LEFT JOIN apple_configurations c ON c.account_id = r.account_id AND c.pass_type_identifier = r.pass_type_identifier
     WHERE r.pass_id = ANY(${passIds}::uuid[])
     ORDER BY r.pass_id, d.id`,
  );
}

/**
 * The push credentials of Apple configurations, by id (the key decrypted).
 * @returns Credentials keyed by configuration id; the credentials id is the configuration's
 *   version, so a replaced certificate gets a new APNs session.
 */
export async function selectPushCredentials(prisma: PrismaExecutor, cipher: SecretCipher, configurationIds: string[]): Promise<Map<string, ApnsCredentials>> {
  const unique = [...new Set(configurationIds)];
  if (!unique.length) return new Map();
  const rows = await queryRows<{ id: string; certificatePem: string; privateKeyEncrypted: Uint8Array; updatedAt: Date }>(
    prisma,
    Prisma.sql`
    SELECT id::text AS id, certificate_pem, private_key_encrypted, updated_at
      FROM apple_configurations WHERE id = ANY(${unique}::uuid[])`,
  );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: `${row.id}/${row.updatedAt.getTime()}`,
        certificatePem: row.certificatePem,
        privateKeyPem: cipher.decrypt(row.privateKeyEncrypted, applePrivateKeyContext(row.id)),
      },
    ]),
  );
}

/** One delivery attempt, as recorded. */
export interface AttemptRecord {
  accountId: string;
  passId: string;
  channel: 'apns' | 'googleWallet';
  target: string;
  operation: string;
  outcome: ApnsOutcome;
  status: number;
  reason: string | null;
  jobId: string | null;
  attempt: number;
  batchId: string | null;
  at: Date;
}

/** Records attempts, in one statement. */
export async function recordAttempts(prisma: PrismaExecutor, attempts: AttemptRecord[]): Promise<void> {
  if (!attempts.length) return;
  const column = <K extends keyof AttemptRecord>(key: K) => attempts.map((a) => a[key]);
  await prisma.$executeRaw`
    INSERT INTO delivery_attempts (account_id, pass_id, channel, target, operation, outcome, status, reason, job_id, attempt, batch_id, created_at)
    SELECT account_id, pass_id, channel::delivery_channel, target, operation, outcome, status, reason, job_id, attempt, batch_id, created_at
      FROM unnest(${column('accountId')}::uuid[], ${column('passId')}::uuid[], ${column('channel')}::text[],
                  ${column('target')}::varchar[], ${column('operation')}::varchar[], ${column('outcome')}::varchar[],
                  ${column('status')}::int[], ${column('reason')}::varchar[], ${column('jobId')}::uuid[], ${column('attempt')}::int[],
                  ${column('batchId')}::uuid[], ${column('at')}::timestamptz[])
        AS t(account_id, pass_id, channel, target, operation, outcome, status, reason, job_id, attempt, batch_id, created_at)`;
}

/**
 * The devices a job, or a batch, already reached (`<pass id>/<device library identifier>`): a
 * retried job, or a batch resumed after a restart, skips them.
 */
export async function selectDeliveredTargets(prisma: PrismaExecutor, by: { jobId: string } | { batchId: string; passIds: string[] }): Promise<Set<string>> {
  const rows =
    'jobId' in by
      ? await prisma.$queryRaw<{ key: string }[]>`
          SELECT pass_id::text || '/' || target AS key FROM delivery_attempts WHERE job_id = ${by.jobId}::uuid AND outcome = 'delivered'`
      : await prisma.$queryRaw<{ key: string }[]>`
          SELECT pass_id::text || '/' || target AS key FROM delivery_attempts
           WHERE batch_id = ${by.batchId}::uuid AND pass_id = ANY(${by.passIds}::uuid[]) AND outcome = 'delivered'`;
  return new Set(rows.map((r) => r.key));
}

/**
 * Removes a registration after APNs said the token is no longer valid: at once for a bad token,
 * and for 410 Unregistered only when the device has not registered again since APNs's timestamp
 * (Apple: 410 is answered with a delay, so a newer registration stands).
 */
export async function removeRegistration(prisma: PrismaExecutor, deviceId: string, passId: string, unregisteredAt: Date | null): Promise<void> {
  await prisma.$executeRaw`
    DELETE FROM apple_registrations
     WHERE device_id = ${deviceId}::uuid AND pass_id = ${passId}::uuid
       AND (${unregisteredAt}::timestamptz IS NULL OR renewed_at < ${unregisteredAt}::timestamptz)`;
}

/** Marks an Apple configuration broken after APNs refused its certificate (its registrations stay). */
export async function markPushCertificateRejected(prisma: PrismaExecutor, configurationId: string, reason: string, at: Date): Promise<void> {
  await prisma.$executeRaw`
    UPDATE apple_configurations SET push_error = ${reason.slice(0, 500)}, push_error_at = ${at} WHERE id = ${configurationId}::uuid`;
}
