/**
 * Keeps Google Wallet in step with the service: a template's class holds its newest processed
 * design, a pass's object its current state, and a pass's new message is added to its object.
 * Google has no device registration and no push: writing the object is the update, and Google
 * syncs the holder's phone (https://developers.google.com/wallet/generic/use-cases/trigger-push-notifications).
 *
 * Writes are insert-or-patch: insert (POST) first, patch (PATCH) when Google answers 409
 * ALREADY_EXISTS; an object this service inserted is patched directly, and inserted again if
 * Google answers 404. Every call made for a pass is recorded in its delivery record
 * (`delivery_attempts`, channel `googleWallet`, target the Google id); 429, 5xx and no answer
 * come back as `retry` for the caller's back-off, other 4xx as `rejected` (recorded, not retried).
 *
 * Nothing is sent that Google holds already: the SHA-256 of each class and object body last
 * written is recorded, and a body that renders the same is not written again. The design lives in
 * the class (src/wallet/google/walletClass.ts), so a redesign is one class PATCH; an object whose
 * body a redesign changes (a label, or a generic template's title, logo or colour, which Google
 * keeps on generic objects) while the pass's own values did not is left to the template's
 * `google-object-rewrite` job (src/delivery/googleObjectRewriteJob.ts), which sends such objects
 * through Google's batch endpoint within the issuer's quota; a pass whose values changed is written
 * at once, with the new design.
 *
 * Messages (pass `latestMessage`, PassEntry's update `message`) are added once each with
 * `addMessage`: `TEXT_AND_NOTIFY` while the object has notified fewer than 3 times in 24 hours
 * (Google's limit), else `TEXT`, and `TEXT` again when Google answers QuotaExceededException.
 * Their `header`, the notification's title, is the template's `notificationHeader`, else the
 * account's name (Google's Message resource,
 * https://developers.google.com/wallet/reference/rest/v1/Message).
 *
 * @module delivery/googleSync
 */
import { createHash } from 'node:crypto';
import type { ServiceMetrics } from '../metrics.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { PrismaExecutor } from '../db/database.ts';
import type { SecretCipher } from '../security/secrets.ts';
import { classifyGoogleResponse, type GoogleOutcome, type GoogleResponse, type GoogleWalletClient } from '../wallet/google/client.ts';
import { issuerClass, type GoogleResource, type TemplateImageMember } from '../wallet/google/walletClass.ts';
import { issuerObject, jsonHash, objectTypeOf, passDataHash } from '../wallet/google/walletObject.ts';
import type { AttemptContext } from './applePush.ts';
import { recordAttempts, type AttemptRecord } from '../domain/deliveryAttempts/deliveryAttemptStore.ts';
import {
  recordClassSynced,
  recordMessageAdded,
  recordObjectSynced,
  selectAccountIssuer,
  selectClassVersion,
  selectGooglePass,
  selectPassesWithObjects,
  type AccountIssuer,
  type ProcessedClassVersion,
} from '../domain/googleWallet/googleWalletStore.ts';

/** What Google delivery needs. */
export interface GoogleDependencies {
  db: { prisma: PrismaExecutor };
  secrets: SecretCipher;
  clock: Clock;
  config: Pick<Config, 'publicBaseUrl' | 'googleSaveOrigins' | 'googleWalletCallbacks'>;
  googleWallet: GoogleWalletClient;
  metrics: Pick<ServiceMetrics, 'deliveryAttempts'>;
}

/** What a sync achieved: a Google outcome, or why nothing was written. */
export type GoogleSyncResult = { outcome: GoogleOutcome; reason: string | null } | { outcome: 'notConfigured' | 'notProcessed' | 'nothingToDo'; reason: null };

/** The public path of a processed template image (served by getPassTemplateImage). */
export function templateImagePath(templateId: string, version: number, name: string): string {
  return `/media/pass-templates/${templateId}/versions/${version}/${name}`;
}

/** The path of the save and delete callbacks (contract operation logGoogleWalletEvent). */
export const GOOGLE_CALLBACK_PATH = '/wallet/google/v1/callbacks';

/**
 * The `callbackOptions.url` of classes: `<PUBLIC_BASE_URL>/wallet/google/v1/callbacks` when
 * callbacks are on (`GOOGLE_WALLET_CALLBACKS`), else null (classes carry no callback).
 */
export function googleCallbackUrl(config: Pick<Config, 'publicBaseUrl' | 'googleWalletCallbacks'>): string | null {
  return config.googleWalletCallbacks && config.publicBaseUrl ? `${config.publicBaseUrl}${GOOGLE_CALLBACK_PATH}` : null;
}

/** The Apple bundle file shown by Google for a template image member (the largest drawn). */
const IMAGE_FILE = { logo: 'logo@3x.png', banner: 'strip@3x.png', icon: 'icon@3x.png' } as const satisfies Record<TemplateImageMember, string>;

/**
 * The public URL of a template image: its processed file under `PUBLIC_BASE_URL`, else its own
 * https URL, else none (the icon is Google's circle logo beside a wide logo: walletClass.ts).
 */
export function templateImageUrl(deps: GoogleDependencies, version: ProcessedClassVersion): (member: TemplateImageMember) => string | null {
  return (member) => {
    const file = IMAGE_FILE[member];
    if (deps.config.publicBaseUrl && version.imageNames.includes(file))
      return `${deps.config.publicBaseUrl}${templateImagePath(version.templateId, version.version, file)}`;
    const source = version.sourceImages[member];
    return source?.startsWith('https://') ? source : null;
  };
}

/** Where calls made for a pass are recorded; null for calls made for a template alone. */
interface RecordTarget {
  passId: string;
  accountId: string;
  context: AttemptContext;
}

async function record(deps: GoogleDependencies, target: RecordTarget | null, googleId: string, operation: string, response: GoogleResponse): Promise<void> {
  deps.metrics.deliveryAttempts.inc({ channel: 'googleWallet', outcome: classifyGoogleResponse(response.status) });
  if (!target) return;
  const attempt: AttemptRecord = {
    accountId: target.accountId,
    passId: target.passId,
    channel: 'googleWallet',
    target: googleId.slice(0, 255),
    operation,
    outcome: classifyGoogleResponse(response.status),
    status: response.status,
    reason: response.reason?.slice(0, 500) ?? null,
    jobId: target.context.jobId,
    attempt: target.context.attempt,
    batchId: target.context.batchId,
    at: deps.clock.now(),
  };
  await recordAttempts(deps.db.prisma, [attempt]);
}

/**
 * Inserts a resource, or patches it when it exists (`known`: patch first, insert on 404).
 * @returns The last response and whether it inserted.
 */
async function upsert(
  deps: GoogleDependencies,
  issuer: AccountIssuer,
  resource: GoogleResource,
  kind: 'Class' | 'Object',
  known: boolean,
  target: RecordTarget | null,
): Promise<{ response: GoogleResponse; inserted: boolean }> {
  const insert = async () => {
    const response = await deps.googleWallet.call(issuer, { method: 'POST', path: `/${resource.resource}`, body: resource.body });
    await record(deps, target, resource.id, `insert${kind}`, response);
    return response;
  };
  const patch = async () => {
    const response = await deps.googleWallet.call(issuer, {
      method: 'PATCH',
      path: `/${resource.resource}/${encodeURIComponent(resource.id)}`,
      body: resource.body,
    });
    await record(deps, target, resource.id, `patch${kind}`, response);
    return response;
  };
  if (known) {
    const patched = await patch();
    if (patched.status !== 404) return { response: patched, inserted: false };
    return { response: await insert(), inserted: true };
  }
  const inserted = await insert();
  if (inserted.status !== 409) return { response: inserted, inserted: true };
  return { response: await patch(), inserted: false };
}

/**
 * Writes a template's newest processed design to its Google class, unless the class holds it
 * already (template processing; the caller logs the outcome).
 */
export async function syncGoogleClass(deps: GoogleDependencies, templateId: string, accountId: string): Promise<GoogleSyncResult> {
  const issuer = await selectAccountIssuer(deps.db.prisma, deps.secrets, accountId);
  if (!issuer) return { outcome: 'notConfigured', reason: null };
  const version = await selectClassVersion(deps.db.prisma, templateId);
  if (!version) return { outcome: 'notProcessed', reason: null };
  return writeClass(deps, issuer, version, null);
}

/**
 * Writes a processed version to its class unless the class holds it already, with the callback
 * URL of the configuration (a class written before callbacks were switched on or off is written
 * again, so switching takes effect with the next sync of each template's class or passes; switched
 * off, `callbackOptions: null` clears the URL the class had).
 */
async function writeClass(
  deps: GoogleDependencies,
  issuer: AccountIssuer,
  version: ProcessedClassVersion,
  target: RecordTarget | null,
): Promise<GoogleSyncResult> {
  const { templateId } = version;
  const callbackUrl = googleCallbackUrl(deps.config);
  const data = {
    issuerId: issuer.issuerId,
    issuerName: issuer.issuerName,
    templateId,
    imageUrl: templateImageUrl(deps, version),
    smartTap: issuer.smartTap,
    callbackUrl,
  };
  // The hash leaves out `callbackOptions: null`, sent once to clear a URL the class had.
  const bodyHash = jsonHash(issuerClass(version.artefact, data).body);
  const record = (classId: string, classType: string) =>
    recordClassSynced(
      deps.db.prisma,
      { templateId, accountId: version.accountId, classId, classType, version: version.version, callbackUrl, bodyHash },
      deps.clock.now(),
    );
  if (version.syncedVersion !== null && version.syncedBodyHash === bodyHash) {
    if (version.syncedVersion >= version.version) return { outcome: 'nothingToDo', reason: null };
    // A new version whose class renders the same (e.g. only Apple's design changed): nothing to send.
    const resource = issuerClass(version.artefact, data);
    await record(resource.id, resource.resource);
    return { outcome: 'nothingToDo', reason: null };
  }
  const resource = issuerClass(version.artefact, { ...data, clearCallback: version.syncedCallbackUrl !== null });
  const { response } = await upsert(deps, issuer, resource, 'Class', version.syncedVersion !== null, target);
  const outcome = classifyGoogleResponse(response.status);
  if (outcome === 'delivered') await record(resource.id, resource.resource);
  return { outcome, reason: response.reason };
}

/**
 * Brings a pass's Google object up to date: its class first when the class lags behind, then
 * the object (inserted the first time), then its new message, if any.
 * @returns `notConfigured` without Google credentials; `nothingToDo` for a nullified pass never
 *   written; else the outcome of the first call that did not succeed, or `delivered`.
 */
export async function syncGooglePass(deps: GoogleDependencies, passId: string, context: AttemptContext): Promise<GoogleSyncResult> {
  const prisma = deps.db.prisma;
  const pass = await selectGooglePass(prisma, passId);
  if (!pass) return { outcome: 'nothingToDo', reason: null };
  const issuer = await selectAccountIssuer(prisma, deps.secrets, pass.accountId);
  if (!issuer) return { outcome: 'notConfigured', reason: null };
  if (pass.status === 'nullified' && !pass.object) return { outcome: 'nothingToDo', reason: null };
  const target: RecordTarget = { passId, accountId: pass.accountId, context };
  const version = await selectClassVersion(prisma, pass.templateId);
  if (!version) return { outcome: 'notProcessed', reason: null };
  const classResult = await writeClass(deps, issuer, version, target);
  if (classResult.outcome === 'retry' || classResult.outcome === 'rejected') return classResult;
  const now = deps.clock.now();
  const resource = issuerObject(
    version.artefact,
    pass,
    { issuerId: issuer.issuerId, issuerName: issuer.issuerName, imageUrl: templateImageUrl(deps, version) },
    now,
  );
  const written = { bodyHash: jsonHash(resource.body), dataHash: passDataHash(pass, now), designVersion: version.version };
  const known = pass.object;
  // Google holds this body already; or only the design changed, which the template's rewrite job sends in batches.
  const unchanged = known?.bodyHash === written.bodyHash;
  const designOnly = known !== null && known.bodyHash !== null && known.dataHash === written.dataHash && (known.designVersion ?? 0) < version.version;
  let objectExisted = known !== null;
  if (!unchanged && !designOnly) {
    const { response, inserted } = await upsert(deps, issuer, resource, 'Object', known !== null, target);
    const outcome = classifyGoogleResponse(response.status);
    if (outcome !== 'delivered') return { outcome, reason: response.reason };
    // A message given before the object existed is part of the pass, not news: only later ones are added.
    const firstWrite = known === null && inserted;
    await recordObjectSynced(
      prisma,
      {
        passId,
        accountId: pass.accountId,
        objectId: resource.id,
        objectType: resource.resource,
        lastMessage: firstWrite ? pass.latestMessage : (known?.lastMessage ?? null),
        ...written,
      },
      now,
    );
    if (firstWrite) return { outcome, reason: null };
    objectExisted = true;
  }
  if (objectExisted && pass.latestMessage && pass.latestMessage !== known?.lastMessage) {
    return addGoogleMessage(
      deps,
      issuer,
      { passId, objectType: resource.resource, objectId: resource.id, notifiedAt: known?.notifiedAt ?? [] },
      { header: pass.notificationHeader, body: pass.latestMessage },
      target,
    );
  }
  return { outcome: unchanged || designOnly ? 'nothingToDo' : 'delivered', reason: null };
}

/** Google's limit of notifying messages per object per 24 hours. */
export const NOTIFICATIONS_PER_DAY = 3;

/**
 * Adds a message to a pass's object: `TEXT_AND_NOTIFY` while it notified fewer than 3 times in
 * the last 24 hours, else `TEXT`; on QuotaExceededException, once more as `TEXT`.
 * @param message `header` the template's `notificationHeader`, null for none: the message is then
 *   headed with the account's name (`issuer.issuerName`), as Google shows `header` as the title of
 *   the notification (https://developers.google.com/wallet/reference/rest/v1/Message).
 */
export async function addGoogleMessage(
  deps: GoogleDependencies,
  issuer: AccountIssuer,
  object: { passId: string; objectType: string; objectId: string; notifiedAt: Date[] },
  message: { header: string | null; body: string },
  target: RecordTarget,
): Promise<GoogleSyncResult> {
  const now = deps.clock.now();
  const recent = object.notifiedAt.filter((t) => t.getTime() > now.getTime() - 24 * 3600 * 1000);
  const send = async (messageType: 'TEXT' | 'TEXT_AND_NOTIFY') => {
    const id = createHash('sha256').update(`${object.objectId}/${message.body}/${now.getTime()}`).digest('hex').slice(0, 32);
    const response = await deps.googleWallet.call(issuer, {
      method: 'POST',
      path: `/${object.objectType}/${encodeURIComponent(object.objectId)}/addMessage`,
      body: { message: { id, header: message.header || issuer.issuerName, body: message.body, messageType } },
    });
    await record(deps, target, object.objectId, messageType === 'TEXT' ? 'addMessage' : 'addNotifyingMessage', response);
    return response;
  };
  let notify = recent.length < NOTIFICATIONS_PER_DAY;
  let response = await send(notify ? 'TEXT_AND_NOTIFY' : 'TEXT');
  if (notify && response.status === 429 && /QuotaExceeded/i.test(response.reason ?? '')) {
    notify = false;
    response = await send('TEXT');
  }
  const outcome = classifyGoogleResponse(response.status);
  if (outcome === 'delivered') await recordMessageAdded(deps.db.prisma, object.passId, message.body, notify ? [...recent, now] : recent);
  return { outcome, reason: response.reason };
}

/** Attempts and first wait of {@link messageGooglePasses}: 3 attempts, 1 s then 2 s apart. */
const BATCH_MESSAGE_ATTEMPTS = 3;
const BATCH_MESSAGE_BACKOFF_MS = 1000;

/** What adding a batch's message achieved for one pass (as src/delivery/applePush.ts `PassPushResult`). */
export interface GoogleMessageResult {
  passId: string;
  /** 1 when the message is on the pass's Google object (this run or an earlier one), else 0. */
  devices: number;
  /** Why it could not be added, when the pass has an object and it was not; else null. */
  error: string | null;
}

/**
 * Adds a wallet-messaging batch's message (each pass's `latestMessage`, stored by the batch) to
 * the Google objects of a chunk's passes, calls made one pass after another within the issuer's
 * rate, those Google asks to retry (429, 5xx, no answer) tried up to 3 times with doubling
 * waits. A pass whose object already has the message (an earlier run) counts as reached; a pass
 * without an object (not written to Google yet) is skipped.
 */
export async function messageGooglePasses(
  deps: GoogleDependencies,
  batchId: string,
  passIds: string[],
  sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
): Promise<GoogleMessageResult[]> {
  const issuers = new Map<string, AccountIssuer | null>();
  const results = new Map<string, GoogleMessageResult>();
  // Only passes with a Google object get the message: one query finds them (none without Google credentials).
  let pending = passIds.length ? await selectPassesWithObjects(deps.db.prisma, passIds) : [];
  for (let attempt = 1; attempt <= BATCH_MESSAGE_ATTEMPTS && pending.length; attempt++) {
    if (attempt > 1) await sleep(BATCH_MESSAGE_BACKOFF_MS * 2 ** (attempt - 2));
    const retry: string[] = [];
    for (const passId of pending) {
      const pass = await selectGooglePass(deps.db.prisma, passId);
      if (!pass?.object || !pass.latestMessage) {
        results.set(passId, { passId, devices: 0, error: null });
        continue;
      }
      if (pass.object.lastMessage === pass.latestMessage) {
        results.set(passId, { passId, devices: 1, error: null });
        continue;
      }
      if (!issuers.has(pass.accountId)) issuers.set(pass.accountId, await selectAccountIssuer(deps.db.prisma, deps.secrets, pass.accountId));
      const issuer = issuers.get(pass.accountId);
      if (!issuer) {
        results.set(passId, { passId, devices: 0, error: null });
        continue;
      }
      const version = await selectClassVersion(deps.db.prisma, pass.templateId);
      const objectType = version ? objectTypeOf(version.artefact.classType) : 'genericObject';
      const result = await addGoogleMessage(
        deps,
        issuer,
        { passId, objectType, objectId: pass.object.objectId, notifiedAt: pass.object.notifiedAt },
        { header: pass.notificationHeader, body: pass.latestMessage },
        { passId, accountId: pass.accountId, context: { jobId: null, attempt, batchId } },
      );
      results.set(passId, {
        passId,
        devices: result.outcome === 'delivered' ? 1 : 0,
        error: result.outcome === 'delivered' ? null : `Google Wallet: ${result.reason ?? result.outcome}`,
      });
      if (result.outcome === 'retry') retry.push(passId);
    }
    pending = retry;
  }
  return passIds.map((passId) => results.get(passId) ?? { passId, devices: 0, error: null });
}
