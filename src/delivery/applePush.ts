/**
 * Pushes pass changes to the Apple devices registered for them, and acts on APNs's answers as
 * Apple asks (https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns):
 * a 410 Unregistered removes the registration unless the device registered again after APNs's
 * timestamp; BadDeviceToken and DeviceTokenNotForTopic remove it (never retried); a 403 marks the
 * pass type's Apple configuration broken, for the operator to see, and keeps the registrations;
 * 429 and 5xx are left for the caller to retry. Every attempt is recorded.
 *
 * @module delivery/applePush
 */
import type { ServiceMetrics } from '../metrics.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../clock.ts';
import type { SecretCipher } from '../security/secrets.ts';
import type { ApnsClient, ApnsResult } from '../wallet/apple/apns.ts';
import {
  markPushCertificateRejected,
  recordAttempts,
  removeRegistration,
  selectDeliveredTargets,
  selectPushCredentials,
  selectPushTargets,
  type AttemptRecord,
  type PushTarget,
} from '../domain/deliveryAttempts/deliveryAttemptStore.ts';

/** What pushing needs. */
export interface PushDependencies {
  db: Database;
  apns: ApnsClient;
  secrets: SecretCipher;
  clock: Clock;
  metrics: ServiceMetrics;
}

/** Whose attempts these are, for the record. */
export interface AttemptContext {
  jobId: string | null;
  /** 1 on the job's first run. */
  attempt: number;
  batchId: string | null;
}

/** A target and what its push achieved. */
export interface PushOutcome {
  target: PushTarget;
  result: ApnsResult;
}

/**
 * Pushes to every target at once (the APNs client multiplexes them over one HTTP/2 session per
 * certificate), records every attempt, and applies what the answers mean.
 * @returns Each target with its result.
 */
export async function pushToDevices(deps: PushDependencies, targets: PushTarget[], context: AttemptContext): Promise<PushOutcome[]> {
  if (!targets.length) return [];
  const credentials = await selectPushCredentials(
    deps.db.prisma,
    deps.secrets,
    targets.flatMap((t) => (t.configurationId ? [t.configurationId] : [])),
  );
  const outcomes = await Promise.all(
    targets.map(async (target): Promise<PushOutcome> => {
      const credential = target.configurationId ? credentials.get(target.configurationId) : undefined;
      if (!credential) {
        return { target, result: { status: 0, outcome: 'rejected', reason: `The account has no Apple configuration for ${target.passTypeIdentifier}.` } };
      }
      return { target, result: await deps.apns.push({ credentials: credential, topic: target.passTypeIdentifier, pushToken: target.pushToken }) };
    }),
  );
  const now = deps.clock.now();
  const attempts: AttemptRecord[] = outcomes.map(({ target, result }) => ({
    accountId: target.accountId,
    passId: target.passId,
    channel: 'apns',
    target: target.deviceLibraryIdentifier,
    operation: 'push',
    outcome: result.outcome,
    status: result.status,
    reason: result.reason?.slice(0, 500) ?? null,
    jobId: context.jobId,
    attempt: context.attempt,
    batchId: context.batchId,
    at: now,
  }));
  await recordAttempts(deps.db.prisma, attempts);
  for (const attempt of attempts) deps.metrics.deliveryAttempts.inc({ channel: attempt.channel, outcome: attempt.outcome });
  const rejected = new Map<string, string>();
  for (const { target, result } of outcomes) {
    if (result.outcome === 'unregistered') await removeRegistration(deps.db.prisma, target.deviceId, target.passId, result.timestamp ?? now);
    if (result.outcome === 'badToken') await removeRegistration(deps.db.prisma, target.deviceId, target.passId, null);
    if (result.outcome === 'certificateError' && target.configurationId)
      rejected.set(target.configurationId, `APNs refused the certificate: ${result.status || 'TLS'} ${result.reason ?? ''}`.trim());
  }
  for (const [configurationId, reason] of rejected) await markPushCertificateRejected(deps.db.prisma, configurationId, reason, now);
  return outcomes;
}

/** What a message push achieved for one pass. */
export interface PassPushResult {
  passId: string;
  /** Devices reached, this time or by an earlier run of the same batch. */
  devices: number;
  /** Why none of the pass's devices could be reached, when it has some and none was; else null. */
  error: string | null;
}

/** Attempts and waits of {@link pushBatchMessage}: 3 attempts, 1 s then 2 s apart. */
const BATCH_PUSH_ATTEMPTS = 3;
const BATCH_PUSH_BACKOFF_MS = 1000;

/**
 * Pushes a batch's message to the devices of its passes (one chunk), trying the ones APNs asks
 * to retry (429, 5xx, no answer) up to {@link BATCH_PUSH_ATTEMPTS} times with doubling waits,
 * and skipping devices an earlier run of the batch reached already (a batch resumed after a
 * restart pushes nothing twice).
 * @returns One result per pass: how many devices it reached and, when it has devices but reached
 *   none, the reason.
 */
export async function pushBatchMessage(
  deps: PushDependencies,
  batchId: string,
  passIds: string[],
  sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
): Promise<PassPushResult[]> {
  const reached = await selectDeliveredTargets(deps.db.prisma, { batchId, passIds });
  const all = await selectPushTargets(deps.db.prisma, passIds);
  const delivered = new Map<string, number>();
  const failures = new Map<string, string>();
  for (const target of all) {
    if (reached.has(`${target.passId}/${target.deviceLibraryIdentifier}`)) delivered.set(target.passId, (delivered.get(target.passId) ?? 0) + 1);
  }
  let pending = all.filter((t) => !reached.has(`${t.passId}/${t.deviceLibraryIdentifier}`));
  for (let attempt = 1; attempt <= BATCH_PUSH_ATTEMPTS && pending.length; attempt++) {
    if (attempt > 1) await sleep(BATCH_PUSH_BACKOFF_MS * 2 ** (attempt - 2));
    const outcomes = await pushToDevices(deps, pending, { jobId: null, attempt, batchId });
    for (const { target, result } of outcomes) {
      if (result.outcome === 'delivered') delivered.set(target.passId, (delivered.get(target.passId) ?? 0) + 1);
      else failures.set(target.passId, `APNs: ${result.status || 'no answer'} ${result.reason ?? result.outcome}`.trim());
    }
    pending = outcomes.filter((o) => o.result.outcome === 'retry').map((o) => o.target);
  }
  const devicesOf = new Map<string, number>();
  for (const target of all) devicesOf.set(target.passId, (devicesOf.get(target.passId) ?? 0) + 1);
  return passIds.map((passId) => {
    const devices = delivered.get(passId) ?? 0;
    const registered = devicesOf.get(passId) ?? 0;
    return { passId, devices, error: registered > 0 && devices === 0 ? (failures.get(passId) ?? 'No device could be reached.') : null };
  });
}
