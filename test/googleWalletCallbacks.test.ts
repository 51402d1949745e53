/**
 * Google Wallet save and delete callbacks (logGoogleWalletEvent) end to end, through HTTP on a
 * real database with the job workers: classes carry `callbackOptions.url` when callbacks are on;
 * Google's signed callbacks, made by a stand-in that signs as Google does
 * (test/support/fakeGoogleCallbacks.ts), mark the pass added (`android`, `passInstalled`) or
 * removed (`passRemoved`) once per nonce; forged, expired or malformed ones are refused with
 * 4xx and change nothing; Google's root keys are fetched once, cached, and fetched again (at most
 * once a minute) when Google rotates them.
 */
import type { Clock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { startFakeGoogleCallbacks, type CallbackOptions, type FakeGoogleCallbacks } from './support/fakeGoogleCallbacks.ts';
import { startFakeGoogleWallet, type FakeGoogleWallet, type GoogleCall } from './support/fakeGoogleWallet.ts';
import { CLIENT_EMAIL, ISSUER_ID, serviceAccountKeyPair, putGoogleConfiguration } from './support/googleCredentials.ts';
import { setAppleConfiguration } from './support/appleCredentials.ts';
import { createTemplate, expectError, issuePass, loyaltyTemplate } from './support/passes.ts';
import { binary, SimulatedIphone } from './support/simulatedIphone.ts';
import { startTestService, type TestService } from './support/testService.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhookReceiver.ts';

/** The system clock moved by `offset` ms (tests step over the key list's refetch interval). */
const clock = new (class implements Clock {
  offset = 0;
  now() {
    return new Date(Date.now() + this.offset);
  }
})();

const PUBLIC_BASE_URL = 'https://wallet.test';
const CALLBACK_URL = `${PUBLIC_BASE_URL}/wallet/google/v1/callbacks`;

/** The service's configuration, callbacks on or off. */
const configWithCallbacks = (on: boolean) => ({
  publicBaseUrl: PUBLIC_BASE_URL,
  googleWalletApiUrl: wallet.apiUrl,
  googleOauthTokenUrl: wallet.tokenUrl,
  googleWalletCallbacks: on,
  googleWalletCallbackKeysUrl: google.keysUrl,
  webhookAllowPrivate: true,
});

let wallet: FakeGoogleWallet;
let google: FakeGoogleCallbacks;
let hooks: WebhookReceiver;
let service: TestService;
let tenant: { accountId: string; token: string };
let templateId: string;

beforeAll(async () => {
  wallet = await startFakeGoogleWallet({ publicKey: serviceAccountKeyPair().publicKey, clientEmail: CLIENT_EMAIL });
  google = await startFakeGoogleCallbacks({ now: () => clock.now().getTime() });
  hooks = await startWebhookReceiver();
  service = await startTestService({ jobs: 'work', clock, persistent: true, config: configWithCallbacks(true) });
  tenant = await service.createAccount('Coffee Club Ltd');
  await putGoogleConfiguration(service, tenant.accountId);
  await setAppleConfiguration(service, tenant.accountId);
  await service.api
    .post('/api/v1/webhook-subscriptions')
    .set(service.auth(tenant.token))
    .send({ webhookSubscription: { url: `${hooks.url}/hooks`, subscribedEvents: ['passInstalled', 'passRemoved'], scopeType: 'organisation' } })
    .expect(201);
  templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
});
afterAll(async () => {
  await service?.close();
  await hooks?.close();
  await google?.close();
  await wallet?.close();
});

const auth = () => service.auth(tenant.token);

/** Waits until the Google Wallet stand-in has a call matching (at most 20 s). */
async function googleCall(match: (call: GoogleCall) => boolean): Promise<GoogleCall | undefined> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = wallet.calls.find(match);
    if (found || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A pass issued through the API, its object written to Google (its callback would name it). */
async function passInGoogle(): Promise<string> {
  const pass = await issuePass(service, tenant.token, templateId, { pass: { member: 'Ada' } });
  expect(await googleCall((c) => c.method === 'POST' && c.path === '/loyaltyObject' && c.body.id === `${ISSUER_ID}.${pass.id}`)).toBeDefined();
  // The object's record is written right after Google's answer.
  for (let i = 0; i < 100 && (await service.runtime.db.prisma.googleWalletObject.count({ where: { passId: pass.id } })) === 0; i++)
    await new Promise((r) => setTimeout(r, 50));
  return pass.id;
}

const forPass = (passId: string, eventType: 'save' | 'del', options: Partial<CallbackOptions> = {}): CallbackOptions => ({
  issuerId: ISSUER_ID,
  classId: `${ISSUER_ID}.${templateId}`,
  objectId: `${ISSUER_ID}.${passId}`,
  eventType,
  ...options,
});
const post = (body: unknown) => service.api.post('/wallet/google/v1/callbacks').send(body as object);
const passAttributes = async (passId: string) =>
  (await service.api.get(`/api/v1/passes/${passId}`).set(auth()).expect(200)).body.data.attributes as Record<string, unknown>;
/** The webhooks received about a pass, by type. */
const webhooksOf = (passId: string) =>
  hooks.received.filter((r) => r.body.data.relationships.pass?.data.id === passId).map((r) => r.body.data.attributes.webhookType as string);

describe('configuration', () => {
  it('is off by default, with Google key list URL; on, it needs an https PUBLIC_BASE_URL', () => {
    expect(loadConfig({})).toMatchObject({ googleWalletCallbacks: false, googleWalletCallbackKeysUrl: 'https://pay.google.com/gp/m/issuer/keys' });
    expect(
      loadConfig({
        GOOGLE_WALLET_CALLBACKS: 'true',
        PUBLIC_BASE_URL: 'https://wallet.example.com',
        GOOGLE_WALLET_CALLBACK_KEYS_URL: 'http://127.0.0.1:9/keys',
      }),
    ).toMatchObject({
      googleWalletCallbacks: true,
      googleWalletCallbackKeysUrl: 'http://127.0.0.1:9/keys',
    });
    expect(() => loadConfig({ GOOGLE_WALLET_CALLBACKS: 'true' })).toThrow(/GOOGLE_WALLET_CALLBACKS=true needs an https PUBLIC_BASE_URL/);
    expect(() => loadConfig({ GOOGLE_WALLET_CALLBACKS: 'true', PUBLIC_BASE_URL: 'http://wallet.example.com' })).toThrow(/https PUBLIC_BASE_URL/);
    expect(() => loadConfig({ GOOGLE_WALLET_CALLBACK_KEYS_URL: 'ftp://keys' })).toThrow(/GOOGLE_WALLET_CALLBACK_KEYS_URL/);
  });
});

describe('classes', () => {
  it('carry callbackOptions.url, the public callback endpoint, when callbacks are on', async () => {
    const insert = await googleCall((c) => c.method === 'POST' && c.path === '/loyaltyClass');
    expect(insert?.body.id).toBe(`${ISSUER_ID}.${templateId}`);
    expect(insert?.body.callbackOptions).toEqual({ url: CALLBACK_URL });
  });
});

describe('keys', () => {
  it('answers 503 while Google key list cannot be fetched, then fetches it', async () => {
    const passId = await passInGoogle();
    google.failKeys(1);
    const res = await post(google.callback(forPass(passId, 'save'))).expect(503);
    expect(res.headers['retry-after']).toBe('60');
    expect(res.body.errors[0]).toMatchObject({ code: 'service_unavailable', detail: expect.stringContaining('answered 500') });
    expect((await passAttributes(passId)).addedAt).toBeNull();
    await post(google.callback(forPass(passId, 'del'))).expect(200);
    // Cached (max-age 3600): further callbacks do not fetch it.
    const fetched = google.keyRequests;
    for (let i = 0; i < 3; i++) await post(google.callback(forPass(passId, 'del'))).expect(200);
    expect(google.keyRequests).toBe(fetched);
  });
});

describe('save and delete', () => {
  it('a save marks the pass added to an Android wallet, active, and sends passInstalled', async () => {
    const passId = await passInGoogle();
    const before = await passAttributes(passId);
    expect(before).toMatchObject({ status: 'issued', addedAt: null });
    expect(before.deviceType).toBeUndefined();
    const savedAt = clock.now().getTime();
    await post(google.callback(forPass(passId, 'save'))).expect(200);
    const after = await passAttributes(passId);
    expect(after).toMatchObject({ status: 'active', deviceType: 'android', removedAt: null });
    expect(Math.abs(Date.parse(after.addedAt as string) - savedAt)).toBeLessThan(5000);
    const [installed] = await hooks.waitFor(1, { filter: (r) => r.body.data.relationships.pass?.data.id === passId });
    expect(installed!.body.data.attributes.webhookType).toBe('passInstalled');
    expect(installed!.body.included[0]).toMatchObject({ id: passId, type: 'pass', attributes: { deviceType: 'android', status: 'active' } });
  });

  it('a deletion marks the pass removed and sends passRemoved; a repeated nonce changes nothing', async () => {
    const passId = await passInGoogle();
    const save = google.callback(forPass(passId, 'save', { nonce: `save-${passId}` }));
    await post(save).expect(200);
    const addedAt = (await passAttributes(passId)).addedAt;
    await post(google.callback(forPass(passId, 'del'))).expect(200);
    const removed = await passAttributes(passId);
    expect(removed).toMatchObject({ status: 'removed', addedAt, deviceType: 'android' });
    expect(removed.removedAt).not.toBeNull();
    // Google delivers the save again (same nonce): already applied, nothing changes.
    await post(save).expect(200);
    expect(await passAttributes(passId)).toEqual(removed);
    await hooks.waitFor(2, { filter: (r) => r.body.data.relationships.pass?.data.id === passId });
    await new Promise((r) => setTimeout(r, 300));
    expect(webhooksOf(passId)).toEqual(['passInstalled', 'passRemoved']);
  });

  it('a second save of a saved object and a deletion of an object not saved change nothing', async () => {
    const passId = await passInGoogle();
    await post(google.callback(forPass(passId, 'del'))).expect(200);
    expect(await passAttributes(passId)).toMatchObject({ status: 'issued', addedAt: null, removedAt: null });
    await post(google.callback(forPass(passId, 'save'))).expect(200);
    const saved = await passAttributes(passId);
    await post(google.callback(forPass(passId, 'save'))).expect(200);
    expect(await passAttributes(passId)).toEqual(saved);
    await hooks.waitFor(1, { filter: (r) => r.body.data.relationships.pass?.data.id === passId });
    await new Promise((r) => setTimeout(r, 300));
    expect(webhooksOf(passId)).toEqual(['passInstalled']);
  });

  it('a pass in Google Wallet and on an iPhone is removed only when it left both', async () => {
    const passId = await passInGoogle();
    await post(google.callback(forPass(passId, 'save'))).expect(200);
    const pkpass = (await service.api.get(`/passes/${passId}/apple`).buffer(true).parse(binary).expect(200)).body as Buffer;
    const iphone = new SimulatedIphone(service);
    const held = await iphone.add(pkpass);
    expect(await passAttributes(passId)).toMatchObject({ status: 'active', deviceType: 'iphone' });
    // Off the iPhone, still in Google Wallet: not removed.
    await iphone.remove(held.serialNumber);
    expect(await passAttributes(passId)).toMatchObject({ status: 'active', removedAt: null });
    await post(google.callback(forPass(passId, 'del'))).expect(200);
    expect(await passAttributes(passId)).toMatchObject({ status: 'removed', removedAt: expect.any(String) });
    // In Google Wallet again and on the iPhone again; deleted from Google Wallet: still on the iPhone.
    await post(google.callback(forPass(passId, 'save'))).expect(200);
    await iphone.add(pkpass, 201);
    await post(google.callback(forPass(passId, 'del'))).expect(200);
    expect(await passAttributes(passId)).toMatchObject({ status: 'active' });
  });

  it('acknowledges a callback for an object this service does not know, and logs it', async () => {
    const unknown = '0194f3a2-0000-7000-8000-000000000000';
    await post(google.callback(forPass(unknown, 'save'))).expect(200);
    expect(service.logs.some((l) => l.outcome === 'unknownObject' && l.objectId === `${ISSUER_ID}.${unknown}`)).toBe(true);
  });
});

describe('refusals', () => {
  let passId: string;
  beforeAll(async () => {
    passId = await passInGoogle();
  });
  afterEach(async () => {
    // Nothing was applied.
    expect(await passAttributes(passId)).toMatchObject({ status: 'issued', addedAt: null });
  });

  it.each([
    ['a message changed after signing', { tamper: true }, 'callback_signature_invalid', '/signature'],
    ['a message signed for another issuer', { recipientId: '3388000000099999999' }, 'callback_signature_invalid', '/signature'],
    [
      'an intermediate key signed by a root key Google does not list',
      { unknownRootKey: true },
      'callback_signature_invalid',
      '/intermediateSigningKey/signatures',
    ],
    ['an expired intermediate key', { intermediateKeyExpiration: Date.now() - 1000 }, 'callback_key_expired', '/intermediateSigningKey/signedKey'],
    ['an expired message', { expTimeMillis: Date.now() - 1000 }, 'callback_message_expired', '/signedMessage'],
  ])('refuses %s with 422', async (_name, options, code, pointer) => {
    expectError(await post(google.callback(forPass(passId, 'save', options))), 422, code, { pointer });
  });

  it('refuses a callback for an issuer no account has with 422', async () => {
    const other = '3388000000099999999';
    const body = google.callback({ issuerId: other, classId: `${other}.${templateId}`, objectId: `${other}.${passId}`, eventType: 'save' });
    expectError(await post(body), 422, 'callback_issuer_unknown', { pointer: '/signedMessage' });
  });

  it('refuses malformed bodies with 400 naming the member', async () => {
    const good = google.callback(forPass(passId, 'save'));
    const { signature: _signature, ...withoutSignature } = good;
    expectError(await post(withoutSignature), 400, 'validation_failed', { pointer: '/signature' });
    expectError(await post({ ...good, protocolVersion: 'ECv2' }), 400, 'validation_failed', { pointer: '/protocolVersion' });
    expectError(await post({ ...good, extra: true }), 400, 'validation_failed', { pointer: '/extra' });
    expectError(
      await post({ ...good, intermediateSigningKey: { signedKey: good.intermediateSigningKey.signedKey, signatures: [] } }),
      400,
      'validation_failed',
      { pointer: '/intermediateSigningKey/signatures' },
    );
    expectError(await post({ ...good, signedMessage: 'not json' }), 400, 'validation_failed', { pointer: '/signedMessage' });
    expectError(await post({ ...good, signedMessage: JSON.stringify({ objectId: 'x', eventType: 'save' }) }), 400, 'validation_failed', {
      pointer: '/signedMessage',
    });
    const wrongEvent = google.callback(forPass(passId, 'save'));
    expectError(await post({ ...wrongEvent, signedMessage: wrongEvent.signedMessage.replace('"save"', '"saved"') }), 400, 'validation_failed', {
      pointer: '/signedMessage',
    });
    expectError(await service.api.post('/wallet/google/v1/callbacks').set('Content-Type', 'application/json').send('{"signature":'), 400, 'invalid_json');
    expectError(await service.api.post('/wallet/google/v1/callbacks').set('Content-Type', 'text/plain').send('hello'), 415, 'unsupported_media_type');
  });

  it('refuses a body over 16 KiB with 413, and other methods with 405', async () => {
    const good = google.callback(forPass(passId, 'save'));
    expectError(await post({ ...good, padding: 'x'.repeat(17 * 1024) }), 413, 'payload_too_large');
    expectError(await service.api.get('/wallet/google/v1/callbacks'), 405, 'method_not_allowed');
  });
});

describe('key rotation', () => {
  it('fetches the key list again when Google rotated its root key, at most once a minute', async () => {
    const passId = await passInGoogle();
    // Whatever happened before, the list was fetched within the last minute after this call and
    // the step back of the clock (a callback no key verifies refetches it when it is older).
    await post(google.callback(forPass(passId, 'save', { unknownRootKey: true }))).expect(422);
    clock.offset -= 30_000;
    const fetched = google.keyRequests;
    google.rotateRootKey();
    // Signed with the new root key: the cached list does not verify it, and the list was fetched
    // less than a minute ago, so it is not fetched again (badly signed callbacks cannot hammer Google).
    expectError(await post(google.callback(forPass(passId, 'save'))), 422, 'callback_signature_invalid', { pointer: '/intermediateSigningKey/signatures' });
    expect(google.keyRequests).toBe(fetched);
    clock.offset += 120_000;
    await post(google.callback(forPass(passId, 'save'))).expect(200);
    expect(google.keyRequests).toBe(fetched + 1);
    expect(await passAttributes(passId)).toMatchObject({ status: 'active', deviceType: 'android' });
    // A bad signature right after: no fetch.
    await post(google.callback(forPass(passId, 'del', { unknownRootKey: true }))).expect(422);
    expect(google.keyRequests).toBe(fetched + 1);
  });
});

describe('switching callbacks off', () => {
  it('writes the class again with callbackOptions null at its next sync, once', async () => {
    service = await service.restart({ jobs: 'work', clock, persistent: true, config: configWithCallbacks(false) });
    const classPath = `/loyaltyClass/${ISSUER_ID}.${templateId}`;
    const before = wallet.calls.length;
    await passInGoogle();
    const patch = await googleCall((c) => wallet.calls.indexOf(c) >= before && c.method === 'PATCH' && c.path === classPath);
    expect(patch?.body).toHaveProperty('callbackOptions', null);
    expect(wallet.resources.get(`${ISSUER_ID}.${templateId}`)?.callbackOptions).toBeNull();
    const after = wallet.calls.length;
    await passInGoogle();
    expect(wallet.calls.slice(after).filter((c) => c.path === classPath)).toEqual([]);
  });
});
