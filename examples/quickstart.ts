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
 *
 * Every step prints one line. Any API error prints the JSON:API error document and exits 1.
 * Running it again is safe: each run issues a new pass (its own extId) and reuses the reader.
 *
 * @module examples/quickstart
 */
import { createHash, randomUUID, webcrypto } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as pkijs from 'pkijs';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
// Inside this repository; another project imports the same from the package:
//   import { createWalletPassClient, WalletPassApiError, type components, type ErrorDocument } from 'wallet-pass-service/client';
import { createWalletPassClient, WalletPassApiError, type components, type ErrorDocument } from '../src/client/index.ts';

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

const baseUrl = process.env.BASE_URL || 'http://127.0.0.1:3000';
const token = process.env.API_TOKEN;
if (!token) {
  console.error('API_TOKEN is not set: give the API key of an account (npm run admin -- account create --name <name>).');
  process.exit(2);
}
const client = createWalletPassClient({ baseUrl, token });

/**
 * A brand image as a `data:` URL. Templates take https URLs (fetched when the template is
 * processed) or the image itself as a `data:` URL; this example draws solid colours so that it
 * needs no image host.
 */
async function brandImage(width: number, height: number, colour: string): Promise<string> {
  const png = await sharp({ create: { width, height, channels: 3, background: colour } }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

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
    console.log('- Apple pass download skipped: set APPLE_ROOT_CA to the root certificate of the account’s Apple credentials.');
    return;
  }
  const download = await fetch(`${baseUrl}/passes/${pass.id}/apple`);
  if (!download.ok) throw new StepFailed('downloadApplePass', download.status, await download.json());
  const files = unzipSync(new Uint8Array(await download.arrayBuffer()));
  const manifest = JSON.parse(Buffer.from(files['manifest.json']!).toString('utf8')) as Record<string, string>;
  const wrongHashes = Object.entries(manifest).filter(([file, sha1]) => createHash('sha1').update(files[file] ?? '').digest('hex') !== sha1);
  if (wrongHashes.length) throw new Error(`manifest.json does not match ${wrongHashes.map(([file]) => file).join(', ')}.`);
  const signed = await verifyPassSignature(files.signature!, files['manifest.json']!, await readFile(rootCaPath, 'utf8'));
  const passJson = JSON.parse(Buffer.from(files['pass.json']!).toString('utf8')) as { serialNumber: string; passTypeIdentifier: string };
  report('Apple pass downloaded', {
    type: download.headers.get('content-type'),
    files: Object.keys(files).length,
    serialNumber: passJson.serialNumber,
    signedFor: passJson.passTypeIdentifier,
    signature: signed ? 'verified' : 'INVALID',
  });
  if (!signed || passJson.serialNumber !== pass.id) throw new Error('The downloaded pass is not signed correctly for this pass.');
}

/**
 * Verifies a pass's detached CMS signature over its manifest, and that the signer chains to the
 * given root (pkijs with Node's WebCrypto).
 */
async function verifyPassSignature(signature: Uint8Array, manifest: Uint8Array, rootPem: string): Promise<boolean> {
  pkijs.setEngine('node', new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as never }));
  const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const root = pkijs.Certificate.fromBER(der(rootPem));
  const contentInfo = pkijs.ContentInfo.fromBER(signature);
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  const toArrayBuffer = (bytes: Uint8Array) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  try {
    return await signedData.verify({ signer: 0, data: toArrayBuffer(manifest), trustedCerts: [root], checkChain: true });
  } catch {
    return false;
  }
}

try {
  await main();
  console.log('Quickstart finished.');
} catch (error) {
  if (error instanceof StepFailed) {
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
