/**
 * Quickstart: the main job of the Wallet Pass Service, end to end, against a running server.
 *
 *   BASE_URL=http://127.0.0.1:3000 API_TOKEN=wps_… npm run example
 *
 * 1. Pick the entity that owns the reader and the message batch (`ENTITY_ID`, else the
 *    account's first entity; an API key cannot create entities — the operator does, with
 *    `npm run admin -- entity create`).
 * 2. Create a loyalty pass template with every member of the payload and wait until it is processed.
 * 3. Issue a pass from it, with an external id and an `Idempotency-Key`.
 * 4. Find or create a reader, and log a scan through it that adds points to the pass.
 * 5. Read the loyalty balance back and check it (exit 1 when it is not what the steps made).
 * 6. Schedule a wallet message to the pass and read the batch back once it is validated (`scheduled`).
 * 7. List templates, passes, scans and batches, page after page, and count them.
 * 8. Download the pass's signed Apple Wallet file and check it: every file's SHA-1 in
 *    `manifest.json`, and the CMS signature against the root certificate of the account's Apple
 *    credentials (`APPLE_ROOT_CA`, a PEM file; `npm run admin -- apple dev-certificate` writes one
 *    for development). Skipped without `APPLE_ROOT_CA`.
 * 9. A simulated iPhone (examples/simulatedWallet.ts) adds that pass: it registers with the
 *    service's Apple Wallet web service (`<base>/wallet/apple/v1/devices/…`, with the pass's
 *    `authenticationToken` from its `pass.json`). Then the loyalty balance changes through the API
 *    (145 → 155 points), the service pushes to the device through APNs, and the device lists the
 *    passes updated since its last list, fetches the new version and checks it (signature, and
 *    the points field). The push goes to a fake APNs (scripts/fakeApnsServer.ts, the server's
 *    `APNS_URL`) that appends each push to the file `FAKE_APNS_PUSHES`, which the example polls
 *    (at most 30 s; it prints how long the push took). Skipped without `FAKE_APNS_PUSHES` or
 *    `APPLE_ROOT_CA`; scripts/exampleAgainstFreshServer.sh sets both.
 *
 * Every step prints one line. Any API error prints the JSON:API error document and exits 1.
 * Running it again is safe: each run issues a new pass (its own extId) and reuses the reader.
 *
 * @module examples/quickstart
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
// Inside this repository; another project imports the same from the package:
//   import { createWalletPassClient, WalletPassApiError, type components, type ErrorDocument } from 'wallet-pass-service/client';
import { WalletPassApiError, type components, type ErrorDocument } from '../src/client/index.ts';
import { brandImage, exampleEnvironment } from './exampleEnvironment.ts';
import { checkPkpass, passFieldValue } from './pkpass.ts';
import { SimulatedWallet, WebServiceRequestFailed } from './simulatedWallet.ts';

type PassTemplateCreate = components['schemas']['PassTemplateCreate'];

/** An API call failed: the response's status and its JSON:API error document. */
class StepFailed extends Error {
  constructor(
    readonly step: string,
    readonly status: number,
    readonly document: unknown,
  ) {
    super(`${step} failed with HTTP ${status}`);
  }
}

/**
 * Returns the body of a successful openapi-fetch call.
 * @throws StepFailed with the error document when the API answered an error.
 */
function ok<T>(step: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new StepFailed(step, result.response.status, result.error);
  return result.data;
}

/** Prints one step's result. */
function report(step: string, details: Record<string, unknown>): void {
  const text = Object.entries(details)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  console.log(`✔ ${step}: ${text}`);
}

const { baseUrl, client } = exampleEnvironment();

/** The loyalty card design: every member a template can have (colours, images, all field areas, app links, barcode, place, beacon). */
const coffeeClubCard: PassTemplateCreate = {
  name: 'Coffee Club Card',
  templateType: 'loyalty',
  defaultLanguage: 'en',
  centralTitle: 'Coffee Club',
  notificationHeader: 'Coffee Club news',
  description: 'Loyalty card of the Coffee Club',
  colors: { background: '#1A2B3C', label: '#F5D76E', text: '#FFFFFF' },
  images: {
    banner: await brandImage(1125, 432, '#C0392B'),
    logo: await brandImage(480, 150, '#F5D76E'),
    icon: await brandImage(87, 87, '#1A2B3C'),
    watermark: { color: 'light', position: 'bottomRight' },
  },
  fields: {
    // `points` is the loyalty field: a pass's balance starts at its value.
    header: { one: { id: 'points', label: 'Points', defaultValue: '0', localisation: { de: { label: 'Punkte', defaultValue: '0' } } } },
    central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest', localisation: { de: { label: 'Mitglied', defaultValue: 'Gast' } } } },
    details: {
      one: { id: 'tier', label: 'Tier', defaultValue: 'Bronze' },
      two: { id: 'since', label: 'Member since', defaultValue: '2026' },
      three: { id: 'shop', label: 'Home shop', defaultValue: 'Soho' },
    },
    back: { one: { id: 'terms', label: 'Terms', defaultValue: 'One stamp per drink; ten stamps buy a free coffee.' } },
  },
  appLinking: {
    apple: { appStoreUrl: ['https://apps.apple.com/gb/app/coffee-club/id1234567890'] },
    google: { app: { playStoreUrl: 'https://play.google.com/store/apps/details?id=com.example.coffeeclub' }, displayText: { text: 'Open the app' } },
  },
  barcode: { enabled: true, type: 'qr', source: 'custom', value: 'COFFEE-CLUB' },
  locations: [{ name: 'Soho shop', latitude: 51.5136, longitude: -0.1365, radius: 100, message: 'Your coffee is one minute away.' }],
  beacons: [{ name: 'Counter', proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', major: 1, minor: 7, message: 'Show this card at the counter.' }],
};

const STARTING_POINTS = 120;
const POINTS_FROM_SCAN = 25;
const READER_ID = 'quickstart-till';

/** Reads a batch until it is no longer `validating` (at most 30 s). */
async function readBatchWhenValidated(id: string) {
  const deadline = Date.now() + 30_000;
  for (let wait = 200; ; wait = Math.min(wait * 1.5, 2000)) {
    const { data } = ok('getBatch', await client.GET('/api/v1/batches/{id}', { params: { path: { id } } }));
    if (data.attributes.status !== 'validating' || Date.now() + wait > deadline) return data;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Runs the steps; throws StepFailed (or the client's errors) on the first failure. */
async function main(): Promise<void> {
  // 1. The entity.
  let entityId = process.env.ENTITY_ID;
  if (!entityId) {
    const entities = ok('listEntities', await client.GET('/api/v1/entities', { params: { query: { perPage: 1 } } }));
    entityId = entities.data[0]?.id;
    if (!entityId) {
      throw new Error('The account has no entity: create one (npm run admin -- entity create --account <id> --name <name>) or set ENTITY_ID.');
    }
  }
  const entity = ok('getEntity', await client.GET('/api/v1/entities/{id}', { params: { path: { id: entityId } } }));
  report('entity', { id: entity.data.id, name: entity.data.attributes.name });

  // 2. A pass template: accepted as `processing`; a background job renders it.
  const created = ok('createPassTemplate', await client.POST('/api/v1/pass-templates', { body: { passTemplate: coffeeClubCard } }));
  report('template created', { id: created.id, processingStatus: created.attributes.processingStatus });
  const template = await client.waitForTemplate(created.id);
  const templateStatus = 'processingStatus' in template.attributes ? template.attributes.processingStatus : 'processed';
  report('template ready', { id: template.id, status: templateStatus });
  if (templateStatus !== 'processed') throw new Error(`The template was not processed: ${JSON.stringify(template.attributes)}`);

  // 3. A pass for a member. The Idempotency-Key makes a retry of this request issue one pass.
  const extId = `member-${Date.now()}`;
  const issued = ok(
    'createPass',
    await client.POST('/api/v1/passes', {
      params: { query: { passTemplate: template.id, extId }, header: { 'Idempotency-Key': randomUUID() } },
      body: { pass: { member: 'Ada Lovelace', tier: 'Gold', points: String(STARTING_POINTS) }, groupTag: 'quickstart' },
    }),
  );
  const pass = issued.data;
  report('pass issued', { id: pass.id, extId: pass.attributes.extId, status: pass.attributes.status });

  // 4. A reader of the entity (found, or created once), and a scan through it that adds points.
  const existing = await client.GET('/api/v1/readers/{id}', { params: { path: { id: READER_ID } } });
  if (existing.response.status === 404) {
    ok(
      'createReader',
      await client.POST('/api/v1/entities/{entity_id}/readers', {
        params: { path: { entity_id: entityId } },
        body: {
          reader: {
            id: READER_ID,
            name: 'Quickstart till',
            type: 'PartnerReader',
            password: randomUUID(),
            scanEnabled: true,
            redeemEnabled: false,
            addPointsEnabled: true,
            mifareClassicNfcEnabled: false,
            qrEnabled: true,
            ndefTagScanningEnabled: false,
          },
        },
      }),
    );
    report('reader created', { id: READER_ID });
  } else {
    report('reader found', { id: ok('getReader', existing).data.id });
  }
  const logged = ok(
    'logScan',
    await client.POST('/api/v1/scans/log', {
      params: { header: { 'Idempotency-Key': randomUUID() } },
      body: { scan: { readerId: READER_ID, passId: extId, scanType: 'nfc', status: 'successful', loyalty: { balance: POINTS_FROM_SCAN } } },
    }),
  );
  report('scan logged', { id: logged.scanInfo.scanId, status: logged.scanInfo.status, points: `+${POINTS_FROM_SCAN}` });

  // 5. The balance: the starting points plus the scan's.
  const loyalty = ok('getLoyalty', await client.GET('/api/v1/loyalty/{id}', { params: { path: { id: extId } } }));
  const expected = STARTING_POINTS + POINTS_FROM_SCAN;
  report('loyalty balance', { pass: extId, balance: loyalty.meta.loyalty.balance, expected });
  if (loyalty.meta.loyalty.balance !== expected) throw new Error(`The balance is ${loyalty.meta.loyalty.balance}, expected ${expected}.`);

  // 6. A wallet message to the pass in an hour; a background job validates the recipients.
  const accepted = ok(
    'createWalletMessagingBatch',
    await client.POST('/api/v1/entities/{entity_id}/messaging/wallet', {
      params: { path: { entity_id: entityId }, header: { 'Idempotency-Key': randomUUID() } },
      body: {
        batch: {
          name: 'Quickstart welcome',
          message: 'You have %{points} points: enjoy a coffee on us!',
          scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
          recipients: [{ passId: extId }],
        },
      },
    }),
  );
  report('batch accepted', { id: accepted.data.id, status: accepted.data.attributes.status });
  const batch = await readBatchWhenValidated(accepted.data.id);
  report('batch read back', { id: batch.id, status: batch.attributes.status, scheduledAt: batch.attributes.scheduledAt });
  if (batch.attributes.status !== 'scheduled') throw new Error(`The batch is ${batch.attributes.status}: ${batch.attributes.statusDetail ?? ''}`);

  // 7. Everything the account has, every page.
  const counts = { templates: 0, passes: 0, scans: 0, batches: 0 };
  for await (const _ of client.paginate('/api/v1/pass-templates')) counts.templates++;
  for await (const _ of client.paginate('/api/v1/passes')) counts.passes++;
  for await (const _ of client.paginate('/api/v1/scans')) counts.scans++;
  for await (const _ of client.paginate('/api/v1/batches')) counts.batches++;
  report('listed', counts);

  // 8. The signed Apple Wallet file, as a holder's iPhone downloads it.
  const rootCaPath = process.env.APPLE_ROOT_CA;
  if (!rootCaPath) {
    console.log('- Apple pass download and simulated iPhone skipped: set APPLE_ROOT_CA to the root certificate of the account’s Apple credentials.');
    return;
  }
  const rootPem = await readFile(rootCaPath, 'utf8');
  const download = await fetch(`${baseUrl}/passes/${pass.id}/apple`);
  if (!download.ok) throw new StepFailed('downloadApplePass', download.status, await download.json());
  const pkpass = new Uint8Array(await download.arrayBuffer());
  const checked = await checkPkpass(pkpass, rootPem);
  report('Apple pass downloaded', {
    type: download.headers.get('content-type'),
    files: Object.keys(checked.files).length,
    serialNumber: checked.passJson.serialNumber,
    signedFor: checked.passJson.passTypeIdentifier,
    signature: checked.signatureVerified ? 'verified' : 'INVALID',
  });
  if (checked.manifestMismatches.length) throw new Error(`manifest.json does not match ${checked.manifestMismatches.join(', ')}.`);
  if (!checked.signatureVerified || checked.passJson.serialNumber !== pass.id) throw new Error('The downloaded pass is not signed correctly for this pass.');

  // 9. A simulated iPhone adds the pass and receives its update.
  const pushesFile = process.env.FAKE_APNS_PUSHES;
  if (!pushesFile) {
    console.log('- Simulated iPhone skipped: set FAKE_APNS_PUSHES to the pushes file of the fake APNs the server pushes to (scripts/fakeApnsServer.ts).');
    return;
  }
  await simulatedIphoneReceivesAnUpdate(pass.id, extId, pkpass, rootPem, pushesFile);
}

const POINTS_FROM_UPDATE = 10;
const PUSH_TIMEOUT_MS = 30_000;

/**
 * Step 9: a simulated iPhone's Wallet (examples/simulatedWallet.ts) adds the downloaded pass —
 * registering with the service's Apple web service — and syncs once; then the loyalty balance
 * changes through the API, the service pushes to the device through APNs (a fake one, which
 * appends every push it receives to `pushesFile` as a JSON line), and the device lists what
 * changed and fetches the new, signed version, whose points field shows the new balance.
 * @throws Error when a step does not give what it should, or the push does not arrive in 30 s.
 */
async function simulatedIphoneReceivesAnUpdate(passId: string, extId: string, pkpass: Uint8Array, rootPem: string, pushesFile: string): Promise<void> {
  const iphone = new SimulatedWallet(baseUrl);
  const { pass: added, status: registered } = await iphone.add(pkpass);
  const current = ok('getPass', await client.GET('/api/v1/passes/{id}', { params: { path: { id: passId } } })).data.attributes;
  report('device registered', {
    device: iphone.deviceLibraryIdentifier,
    pushToken: `…${iphone.pushToken.slice(-8)}`,
    answer: registered,
    passStatus: current.status,
    points: passFieldValue(added.passJson, 'points'),
  });
  if (registered !== 201) throw new Error(`A new device registered with HTTP ${registered}, expected 201.`);
  // Wallet's first list on a new device returns the passes it holds and a tag to list from next time.
  const synced = await iphone.listUpdated(added.passTypeIdentifier, added.webServicePath);
  if (!synced.serialNumbers.includes(passId)) throw new Error(`The device's first list does not hold the pass: ${JSON.stringify(synced)}.`);

  const before = Number(passFieldValue(added.passJson, 'points'));
  const changedAt = Date.now();
  const changed = ok(
    'updateLoyalty',
    await client.PATCH('/api/v1/loyalty/{id}', {
      params: { path: { id: extId }, header: { 'Idempotency-Key': randomUUID() } },
      body: { balance: POINTS_FROM_UPDATE },
    }),
  );
  const after = changed.meta.loyalty.balance;
  report('points changed', { pass: extId, from: before, to: after });
  if (after !== before + POINTS_FROM_UPDATE) throw new Error(`The balance became ${after}, expected ${before + POINTS_FROM_UPDATE}.`);

  const push = await waitForPush(pushesFile, iphone.pushToken, PUSH_TIMEOUT_MS);
  if (!push) throw new Error(`No push reached the fake APNs for this device within ${PUSH_TIMEOUT_MS / 1000} s.`);
  report('push received', { afterMs: push.at - changedAt, topic: push.topic, pushType: push.pushType, body: push.body });
  if (push.topic !== added.passTypeIdentifier) throw new Error(`The push's topic is ${push.topic}, expected ${added.passTypeIdentifier}.`);

  const listed = await iphone.listUpdated(added.passTypeIdentifier, added.webServicePath);
  report('updated passes listed', { serialNumbers: listed.serialNumbers, lastUpdated: listed.lastUpdated });
  if (listed.serialNumbers.length !== 1 || listed.serialNumbers[0] !== passId)
    throw new Error(`The device was told of ${JSON.stringify(listed.serialNumbers)}, expected [${passId}].`);

  const fetched = await iphone.fetchLatest(passId);
  if (fetched.status !== 200 || !fetched.bytes) throw new Error(`The updated pass came with HTTP ${fetched.status}, expected 200.`);
  const updated = await checkPkpass(fetched.bytes, rootPem);
  const points = passFieldValue(updated.passJson, 'points');
  report('updated pass fetched', {
    lastModified: fetched.lastModified,
    points: `${before} → ${String(points)}`,
    signature: updated.signatureVerified ? 'verified' : 'INVALID',
    signedFor: updated.signerUid,
    serialNumber: updated.passJson.serialNumber,
  });
  if (updated.manifestMismatches.length) throw new Error(`The updated pass's manifest.json does not match ${updated.manifestMismatches.join(', ')}.`);
  if (!updated.signatureVerified || updated.signerUid !== added.passTypeIdentifier)
    throw new Error('The updated pass is not signed correctly for its pass type.');
  if (updated.passJson.serialNumber !== passId || updated.passJson.authenticationToken !== added.authenticationToken) {
    throw new Error('The updated pass changed its serial number or authentication token, which must stay.');
  }
  if (String(points) !== String(after)) throw new Error(`The updated pass shows ${String(points)} points, expected ${after}.`);
}

/** A push as the fake APNs records it (scripts/fakeApnsServer.ts). */
interface RecordedPush {
  pushToken: string;
  topic?: string;
  pushType?: string;
  body: string;
  /** When it arrived, ms since the epoch. */
  at: number;
}

/**
 * Polls the fake APNs's pushes file (one JSON line per push) every 25 ms until a push to the
 * token is there.
 * @returns The first such push, or undefined after `timeoutMs`.
 */
async function waitForPush(file: string, pushToken: string, timeoutMs: number): Promise<RecordedPush | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '' : Promise.reject(error)));
    const push = text
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as RecordedPush)
      .find((p) => p.pushToken === pushToken);
    if (push || Date.now() > deadline) return push;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

try {
  await main();
  console.log('Quickstart finished.');
} catch (error) {
  if (error instanceof StepFailed || error instanceof WebServiceRequestFailed) {
    console.error(`✘ ${error.message}:\n${JSON.stringify(error.document, null, 2)}`);
  } else if (error instanceof WalletPassApiError) {
    console.error(`✘ HTTP ${error.status}:\n${JSON.stringify({ errors: error.errors } satisfies ErrorDocument, null, 2)}`);
  } else if ((error as Error).message === 'fetch failed') {
    console.error(`✘ Could not reach ${baseUrl}: ${(error as Error & { cause?: Error }).cause?.message ?? 'no answer'}.`);
  } else {
    console.error(`✘ ${(error as Error).message}`);
  }
  process.exitCode = 1;
}
