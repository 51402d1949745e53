/**
 * Apple Wallet web service and APNs push, end to end: a simulated iPhone
 * (test/support/simulatedIphone.ts) adds passes downloaded from the service, registers for their
 * updates, receives pushes through a local APNs stand-in (test/support/fakeApns.ts: HTTP/2, TLS
 * client certificates), lists what changed and fetches the new versions. Through HTTP on a real
 * database, with the job workers; registerDevice, unregisterDevice, listUpdatedPasses,
 * getLatestApplePass, logAppleDeviceMessages, and the operator's listPassRegistrations,
 * listPassDeliveryAttempts and listAppleDeviceLogs.
 */
import { createApnsClient, type ApnsClient } from '../src/wallet/apple/apns.ts';
import { PASS_TYPE_ID, setAppleConfiguration, testCertificates } from './support/appleCredentials.ts';
import { startFakeApns, type FakeApns, type ReceivedPush } from './support/fakeApns.ts';
import { inspectPkpass } from './support/pkpassInspection.ts';
import { pollUntil } from './support/poll.ts';
import { createTemplate, expectError, issuePass, loyaltyTemplate, settledTemplate } from './support/passes.ts';
import { binary, SimulatedIphone } from './support/simulatedIphone.ts';
import { startTestService, type TestService } from './support/testService.ts';

let fake: FakeApns;
let apns: ApnsClient;
let service: TestService;
let tenant: { accountId: string; token: string };
let templateId: string;

beforeAll(async () => {
  fake = await startFakeApns();
  apns = createApnsClient({ baseUrl: fake.url, ca: fake.ca, requestTimeoutMs: 2000 });
  service = await startTestService({ jobs: 'work', apns });
  tenant = await service.createAccount('Coffee Club Ltd');
  await service.createEntity(tenant.accountId);
  await setAppleConfiguration(service, tenant.accountId);
  templateId = await createTemplate(service, tenant.token, loyaltyTemplate());
});
afterEach(() => fake.reset());
afterAll(async () => {
  await service.close();
  await apns.close();
  await fake.close();
});

const auth = () => service.auth(tenant.token);

/** Issues a pass and downloads its signed file, as the holder's iPhone does. */
/** Waits until the current second is over (HTTP dates, and so Last-Modified, carry whole seconds). */
const secondEnds = () => new Promise((resolve) => setTimeout(resolve, 1005 - (Date.now() % 1000)));

async function issueAndDownload(body: unknown = { pass: {} }) {
  const pass = await issuePass(service, tenant.token, templateId, body);
  const res = await service.api.get(`/passes/${pass.id}/apple`).buffer(true).parse(binary).expect(200);
  return { pass, pkpass: res.body as Buffer };
}

/** The pushes the stand-in has received for a push token, once there are `count` (at most 15 s). */
const pushesTo = (pushToken: string, count = 1, timeoutMs = 15_000): Promise<ReceivedPush[]> =>
  pollUntil(
    async () => fake.requests.filter((r) => r.pushToken === pushToken),
    (pushes) => pushes.length >= count,
    { timeoutMs },
  );

const getPass = async (id: string) => (await service.api.get(`/api/v1/passes/${id}`).set(auth()).expect(200)).body.data.attributes;
const attempts = async (id: string) => (await service.api.get(`/api/v1/passes/${id}/delivery-attempts`).set(auth()).expect(200)).body.data;
/** A pass's delivery attempts once `count` are recorded (a push is recorded after APNs answered). */
const attemptsOnceRecorded = (id: string, count: number) =>
  pollUntil(
    () => attempts(id),
    (record) => record.length >= count,
  );

describe('registerDevice and unregisterDevice', () => {
  it('registers a device (201, then 200), marks the pass active on an iPhone, and unregistering marks it removed', async () => {
    const iphone = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload();
    expect((await getPass(pass.id)).status).toBe('issued');
    const added = await iphone.add(pkpass);
    await iphone.register(added).expect(200);
    expect(await getPass(pass.id)).toMatchObject({ status: 'active', deviceType: 'iphone', addedAt: expect.any(String), removedAt: null });

    const registrations = await service.api.get(`/api/v1/passes/${pass.id}/registrations`).set(auth()).expect(200);
    expect(registrations.body.data).toEqual([
      {
        id: iphone.deviceLibraryIdentifier,
        type: 'appleRegistration',
        attributes: {
          deviceType: 'iphone',
          passTypeIdentifier: PASS_TYPE_ID,
          pushTokenEnd: iphone.pushToken.slice(-8),
          registeredAt: expect.any(String),
          renewedAt: expect.any(String),
          lastPush: null,
        },
      },
    ]);

    await iphone.remove(pass.id);
    expect(await getPass(pass.id)).toMatchObject({ status: 'removed', removedAt: expect.any(String) });
    // Adding it again works.
    await iphone.add(pkpass);
    expect((await getPass(pass.id)).status).toBe('active');
  });

  it('takes the new push token of a device that registers again', async () => {
    const { pass, pkpass } = await issueAndDownload();
    const iphone = new SimulatedIphone(service);
    const added = await iphone.add(pkpass);
    Object.assign(iphone, { pushToken: 'ab'.repeat(32) });
    await iphone.register(added).expect(200);
    await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(auth()).send({ balance: 1 }).expect(200);
    const pushes = await pushesTo('ab'.repeat(32));
    expect(pushes).toHaveLength(1);
  });

  it('answers 401 with an ApplePass challenge to a wrong token, an unknown serial number, another pass type or no token', async () => {
    const { pkpass } = await issueAndDownload();
    const iphone = new SimulatedIphone(service);
    const json = (await inspectPkpass(pkpass, testCertificates().rootCertificatePem)).passJson;
    const pass = {
      serialNumber: String(json.serialNumber),
      passTypeIdentifier: PASS_TYPE_ID,
      authenticationToken: String(json.authenticationToken),
      webServicePath: '/wallet/apple',
      passJson: json,
      lastModified: undefined,
    };
    const wrong = await iphone.register(pass, 'x'.repeat(32));
    expectError(wrong, 401, 'unauthorized', { header: 'Authorization' });
    expect(wrong.headers['www-authenticate']).toMatch(/^ApplePass /);
    expectError(await iphone.register({ ...pass, serialNumber: '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10' }), 401, 'unauthorized');
    expectError(await iphone.register({ ...pass, passTypeIdentifier: 'pass.com.example.other' }), 401, 'unauthorized');
    expectError(
      await service.api
        .post(`/wallet/apple/v1/devices/${iphone.deviceLibraryIdentifier}/registrations/${PASS_TYPE_ID}/${pass.serialNumber}`)
        .send({ pushToken: 'abcd' }),
      401,
      'unauthorized',
    );
    expectError(
      await service.api.get(`/wallet/apple/v1/passes/${PASS_TYPE_ID}/${pass.serialNumber}`).set('Authorization', `ApplePass ${'y'.repeat(32)}`),
      401,
      'unauthorized',
    );
  });
});

describe("any path value is answered with Apple's documented statuses", () => {
  // Path segments as sent on the wire: not a UUID, a UUID too short, upper-case words with a
  // space, a non-ASCII word, 300 characters, a dot-dot segment, a NUL, bytes that are not UTF-8,
  // an encoded UTF-16 surrogate (neither can be stored as text), and an encoded traversal.
  const malformed = [
    'not-a-serial',
    '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e1',
    'NOT%20A%20UUID',
    '%C3%A9t%C3%A9',
    'x'.repeat(300),
    '..',
    '%00',
    '%FF',
    '%ED%A0%80',
    '..%2f..%2f',
  ];
  let pass: { serialNumber: string; token: string };
  const device = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const registration = (d: string, ptid: string, serial: string) => `/wallet/apple/v1/devices/${d}/registrations/${ptid}/${serial}`;
  const applePass = () => ({ Authorization: `ApplePass ${pass.token}` });
  /** registerDevice at `path` with the pass's own token answers 401 with an ApplePass challenge. */
  const expectRegistrationRefused = async (path: string) => {
    const res = await service.api
      .post(path)
      .set(applePass())
      .send({ pushToken: 'ab'.repeat(32) });
    expect({ path, status: res.status }).toEqual({ path, status: 401 });
    expect(res.headers['www-authenticate']).toMatch(/^ApplePass /);
  };

  beforeAll(async () => {
    const { pkpass } = await issueAndDownload();
    const json = (await inspectPkpass(pkpass, testCertificates().rootCertificatePem)).passJson;
    pass = { serialNumber: String(json.serialNumber), token: String(json.authenticationToken) };
  });

  it('registerDevice: 401 for a malformed serial number, pass type identifier or device library identifier', async () => {
    // Device library identifiers other than 1 to 128 letters, digits, '.', '_' or '-'.
    const malformedDevices = ['NOT%20A%20UUID', '%C3%A9t%C3%A9', 'x'.repeat(129), 'a%2Fb', '%00', '%FF', '%ED%A0%80'];
    for (const value of malformed) {
      for (const path of [registration(device, PASS_TYPE_ID, value), registration(device, value, pass.serialNumber)]) await expectRegistrationRefused(path);
    }
    for (const value of malformedDevices) await expectRegistrationRefused(registration(value, PASS_TYPE_ID, pass.serialNumber));
    // Nothing was registered.
    const registrations = await service.api.get(`/api/v1/passes/${pass.serialNumber}/registrations`).set(auth()).expect(200);
    expect(registrations.body.data).toEqual([]);
  });

  it('unregisterDevice: 401 for a malformed serial number or pass type identifier, 200 for a malformed device (registered nowhere)', async () => {
    for (const value of malformed) {
      for (const path of [registration(device, PASS_TYPE_ID, value), registration(device, value, pass.serialNumber)]) {
        const res = await service.api.delete(path).set(applePass());
        expect({ path, status: res.status }).toEqual({ path, status: 401 });
      }
      const path = registration(value, PASS_TYPE_ID, pass.serialNumber);
      const res = await service.api.delete(path).set(applePass());
      // Text that cannot be stored is no device of any pass: 401, as an unknown pass.
      expect({ path, status: res.status }).toEqual({ path, status: ['%00', '%FF', '%ED%A0%80'].includes(value) ? 401 : 200 });
    }
  });

  it('listUpdatedPasses: 204 for a malformed device library identifier, pass type identifier or tag', async () => {
    for (const value of malformed) {
      for (const path of [
        `/wallet/apple/v1/devices/${value}/registrations/${PASS_TYPE_ID}`,
        `/wallet/apple/v1/devices/${device}/registrations/${value}`,
        `/wallet/apple/v1/devices/${device}/registrations/${PASS_TYPE_ID}?passesUpdatedSince=${value}`,
      ]) {
        const res = await service.api.get(path);
        expect({ path, status: res.status }).toEqual({ path, status: 204 });
      }
    }
  });

  it('getLatestApplePass: 401 for a malformed serial number or pass type identifier', async () => {
    for (const value of malformed) {
      for (const path of [`/wallet/apple/v1/passes/${PASS_TYPE_ID}/${value}`, `/wallet/apple/v1/passes/${value}/${pass.serialNumber}`]) {
        const res = await service.api.get(path).set(applePass());
        expect({ path, status: res.status }).toEqual({ path, status: 401 });
      }
    }
  });

  it('answers the same for a value that holds a "/" (an encoded traversal a proxy decoded, a raw dot segment): never 404', async () => {
    // `…/devices/<id>/..%2f..%2f/registrations/…`: the value spans segments; it names no device or pass.
    const spanning = ['x/..%2f..%2f', 'x/../..', '..%2f..%2f/x', 'a/b/c'];
    for (const value of spanning) {
      const register = [
        registration(value, PASS_TYPE_ID, pass.serialNumber),
        registration(device, PASS_TYPE_ID, value),
        registration(device, value, pass.serialNumber),
      ];
      for (const path of register) await expectRegistrationRefused(path);
      for (const path of register.slice(1)) expect({ path, status: (await service.api.delete(path).set(applePass())).status }).toEqual({ path, status: 401 });
      // An unknown device (the value as a whole) is registered nowhere: 200, as for any other.
      const unregistered = register[0]!;
      expect({ path: unregistered, status: (await service.api.delete(unregistered).set(applePass())).status }).toEqual({ path: unregistered, status: 200 });
      const list = `/wallet/apple/v1/devices/${value}/registrations/${PASS_TYPE_ID}`;
      expect({ path: list, status: (await service.api.get(list)).status }).toEqual({ path: list, status: 204 });
      for (const path of [`/wallet/apple/v1/passes/${PASS_TYPE_ID}/${value}`, `/wallet/apple/v1/passes/${value}/${pass.serialNumber}`]) {
        const res = await service.api.get(path).set(applePass());
        expect({ path, status: res.status }).toEqual({ path, status: 401 });
      }
    }
    // Nothing was registered; and a "/" stays a 404 outside the Apple web service.
    const registrations = await service.api.get(`/api/v1/passes/${pass.serialNumber}/registrations`).set(auth()).expect(200);
    expect(registrations.body.data).toEqual([]);
    await service.api.get(`/api/v1/passes/${pass.serialNumber}/..%2f/registrations`).set(auth()).expect(404);
  });

  it('logAppleDeviceMessages: 200 for a message longer than the 2,000 characters kept', async () => {
    await service.api
      .post('/wallet/apple/v1/log')
      .send({ logs: [`long ${'m'.repeat(3000)}`] })
      .expect(200);
    const res = await service.api.get('/admin/v1/apple-device-logs').set(service.adminAuth()).expect(200);
    expect(res.body.data[0].attributes.message).toBe(`long ${'m'.repeat(1995)}`);
  });
});

describe('the update loop', () => {
  it('pushes a changed pass to its device, which lists exactly that serial and fetches a new signed version', async () => {
    const iphone = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload({ pass: { member: 'Ada' } });
    const other = await issueAndDownload();
    await iphone.add(pkpass);
    await iphone.add(other.pkpass);
    expect(await iphone.listUpdated(PASS_TYPE_ID)).toEqual({ status: 200, serialNumbers: [pass.id, other.pass.id] });
    expect(await iphone.fetch(pass.id)).toMatchObject({ status: 200 });
    expect(await iphone.fetch(pass.id)).toEqual({ status: 304 });
    expect((await iphone.listUpdated(PASS_TYPE_ID)).status).toBe(204);

    const update = await service.api
      .patch(`/api/v1/passes/${pass.id}`)
      .set(auth())
      .send({ pass: { member: 'Ada Lovelace' } })
      .expect(200);
    expect(update.body.meta.notifications).toEqual({ status: 'queued', message: 'The update is being pushed to 1 device.' });
    const [push] = await pushesTo(iphone.pushToken);
    expect(push).toMatchObject({ topic: PASS_TYPE_ID, pushType: 'alert', priority: '10', body: '{}', clientCertificateUid: PASS_TYPE_ID });

    expect(await iphone.listUpdated(PASS_TYPE_ID)).toEqual({ status: 200, serialNumbers: [pass.id] });
    const fetched = await iphone.fetch(pass.id);
    expect(fetched.status).toBe(200);
    expect((fetched.passJson as { storeCard: { primaryFields: { value: string }[] } }).storeCard.primaryFields[0]!.value).toBe('Ada Lovelace');
    const inspected = await inspectPkpass(fetched.bytes!, testCertificates().rootCertificatePem);
    expect(inspected.signatureVerified).toBe(true);
    expect(await iphone.fetch(pass.id)).toEqual({ status: 304 });
    expect((await iphone.listUpdated(PASS_TYPE_ID)).status).toBe(204);

    const record = await attemptsOnceRecorded(pass.id, 1);
    expect(record[0]).toMatchObject({
      type: 'deliveryAttempt',
      attributes: { channel: 'apns', target: iphone.deviceLibraryIdentifier, operation: 'push', outcome: 'delivered', status: 200, attempt: 1 },
    });
    const metrics = (await service.api.get('/metrics').set(service.adminAuth()).expect(200)).text;
    expect(Number(/^wallet_delivery_attempts_total\{channel="apns",outcome="delivered"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  });

  it('sends a second change made in the same second as the copy the device holds', async () => {
    const iphone = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload({ pass: { member: 'Ada' } });
    await iphone.add(pkpass);
    // At the start of a second, both changes and both fetches fall in that second: the second
    // change still gets a later Last-Modified (the passes_distinct_update_second trigger).
    await secondEnds();
    await service.api
      .patch(`/api/v1/passes/${pass.id}`)
      .set(auth())
      .send({ pass: { member: 'Ada L.' } })
      .expect(200);
    const first = await iphone.fetch(pass.id);
    expect((first.passJson as { storeCard: { primaryFields: { value: string }[] } }).storeCard.primaryFields[0]!.value).toBe('Ada L.');
    await service.api
      .patch(`/api/v1/passes/${pass.id}`)
      .set(auth())
      .send({ pass: { member: 'Ada Lovelace' } })
      .expect(200);
    const second = await iphone.fetch(pass.id);
    expect(second.status).toBe(200);
    expect((second.passJson as { storeCard: { primaryFields: { value: string }[] } }).storeCard.primaryFields[0]!.value).toBe('Ada Lovelace');
    expect(await iphone.fetch(pass.id)).toEqual({ status: 304 });
  });

  it('coalesces a burst of changes into one push per device', async () => {
    const iphone = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload();
    await iphone.add(pkpass);
    for (let i = 0; i < 10; i++) await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(auth()).send({ balance: 1 }).expect(200);
    await pushesTo(iphone.pushToken);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await pushesTo(iphone.pushToken)).toHaveLength(1);
    const fetched = await iphone.fetch(pass.id);
    expect((fetched.passJson as { storeCard: { headerFields: { value: string }[] } }).storeCard.headerFields[0]!.value).toBe('10');
  });

  it('pushes a scan’s balance change, a deactivation and a nullification, which voids the pass on the device', async () => {
    const iphone = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload();
    await iphone.add(pkpass);
    await service.api
      .post(`/api/v1/entities/${(await service.api.get('/api/v1/entities').set(auth())).body.data[0].id}/readers`)
      .set(auth())
      .send({ reader: { id: 'till-apns', name: 'Till', type: 'PartnerReader', password: 'correct horse battery', addPointsEnabled: true } })
      .expect(201);
    await service.api
      .post('/api/v1/scans/log')
      .set(auth())
      .send({ scan: { readerId: 'till-apns', passId: pass.id, scanType: 'nfc', status: 'successful', loyalty: { balance: 25 } } })
      .expect(200);
    await pushesTo(iphone.pushToken, 1);
    expect((await iphone.fetch(pass.id)).passJson).toMatchObject({ storeCard: { headerFields: [{ key: 'points', value: '25' }] } });

    await service.api.patch(`/api/v1/passes/${pass.id}`).set(auth()).send({ passAction: 'deactivate' }).expect(200);
    await pushesTo(iphone.pushToken, 2);
    expect((await iphone.fetch(pass.id)).passJson?.voided).toBe(true);

    await service.api.post(`/api/v1/passes/${pass.id}/nullify`).set(auth()).expect(200);
    await pushesTo(iphone.pushToken, 3);
    const voided = await iphone.fetch(pass.id);
    expect(voided.status).toBe(200);
    expect(voided.passJson).toMatchObject({ voided: true });
    expect(voided.passJson?.barcodes).toBeUndefined();
  });

  it('shows a message on the lock screen through the message field’s changeMessage', async () => {
    const iphone = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload();
    await iphone.add(pkpass);
    await service.api.patch(`/api/v1/passes/${pass.id}`).set(auth()).send({ message: 'Double points today' }).expect(200);
    await pushesTo(iphone.pushToken);
    const fetched = await iphone.fetch(pass.id);
    expect((fetched.passJson as { storeCard: { backFields: unknown[] } }).storeCard.backFields).toContainEqual({
      key: 'latestMessage',
      label: 'Coffee Club news',
      value: 'Double points today',
      changeMessage: '%@',
    });
  });

  it('pushes a template’s new design to the devices of its passes, which fetch the passes in the new colours', async () => {
    const redesigned = await createTemplate(service, tenant.token, loyaltyTemplate({ name: 'Redesigned card' }));
    const iphone = new SimulatedIphone(service);
    const installed = await issuePass(service, tenant.token, redesigned, { pass: {} });
    const notInstalled = await issuePass(service, tenant.token, redesigned, { pass: {} });
    await iphone.add((await service.api.get(`/passes/${installed.id}/apple`).buffer(true).parse(binary).expect(200)).body as Buffer);
    expect((await iphone.listUpdated(PASS_TYPE_ID)).serialNumbers).toEqual([installed.id]);
    expect((await iphone.listUpdated(PASS_TYPE_ID)).status).toBe(204);

    await service.api
      .patch(`/api/v1/pass-templates/${redesigned}`)
      .set(auth())
      .send({ passTemplate: { colors: { background: '#AA0000', label: '#FFFFFF', text: '#FFFFFF' } } })
      .expect(202);
    expect((await settledTemplate(service, tenant.token, redesigned)).processingStatus).not.toBe('failed');
    expect(await pushesTo(iphone.pushToken)).toHaveLength(1);
    expect(await iphone.listUpdated(PASS_TYPE_ID)).toEqual({ status: 200, serialNumbers: [installed.id] });
    const fetched = await iphone.fetch(installed.id);
    expect(fetched.status).toBe(200);
    expect((fetched.passJson as { backgroundColor: string }).backgroundColor).toBe('rgb(170, 0, 0)');
    expect(await iphone.fetch(installed.id)).toEqual({ status: 304 });
    // The pass in no wallet has nothing to push to: its next download is the new design.
    expect(await attempts(notInstalled.id)).toEqual([]);
  });

  it('says notDelivered when the pass is in no wallet', async () => {
    const { pass } = await issueAndDownload();
    const res = await service.api.patch(`/api/v1/passes/${pass.id}`).set(auth()).send({ message: 'Hello' }).expect(200);
    expect(res.body.meta.notifications).toEqual({ status: 'notDelivered', message: 'Pass has not been added to the wallet' });
  });
});

describe('APNs answers', () => {
  it('removes the registration of a 410 Unregistered token, unless the device registered again since', async () => {
    const gone = new SimulatedIphone(service);
    const renewed = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload();
    await gone.add(pkpass);
    await renewed.add(pkpass);
    fake.answer((push) => (push.pushToken === gone.pushToken ? { status: 410, reason: 'Unregistered', timestamp: Date.now() + 60_000 } : undefined));
    fake.answer((push) => (push.pushToken === renewed.pushToken ? { status: 410, reason: 'Unregistered', timestamp: Date.now() - 3_600_000 } : undefined));
    await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(auth()).send({ balance: 1 }).expect(200);
    await pushesTo(gone.pushToken);
    await pushesTo(renewed.pushToken);
    // The job removes or keeps each registration once APNs answered: wait until one is left with its push recorded.
    const registrations = await pollUntil(
      () => service.api.get(`/api/v1/passes/${pass.id}/registrations`).set(auth()).expect(200),
      (res) => res.body.data.length === 1 && Boolean(res.body.data[0].attributes.lastPush),
    );
    expect(registrations.body.data.map((r: { id: string }) => r.id)).toEqual([renewed.deviceLibraryIdentifier]);
    expect(registrations.body.data[0].attributes.lastPush).toMatchObject({ outcome: 'unregistered', status: 410, reason: 'Unregistered' });
  });

  it('removes a BadDeviceToken registration without retrying', async () => {
    const iphone = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload();
    await iphone.add(pkpass);
    fake.answer((push) => (push.pushToken === iphone.pushToken ? { status: 400, reason: 'BadDeviceToken' } : undefined));
    await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(auth()).send({ balance: 1 }).expect(200);
    await pushesTo(iphone.pushToken);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await pushesTo(iphone.pushToken)).toHaveLength(1);
    expect((await service.api.get(`/api/v1/passes/${pass.id}/registrations`).set(auth())).body.data).toEqual([]);
  });

  it('retries 503 and 429 with back-off until delivered, recording every attempt', async () => {
    const iphone = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload();
    await iphone.add(pkpass);
    let answered = 0;
    fake.answer((push) =>
      push.pushToken === iphone.pushToken && answered++ < 2
        ? { status: answered === 1 ? 503 : 429, reason: answered === 1 ? 'ServiceUnavailable' : 'TooManyRequests' }
        : undefined,
    );
    await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(auth()).send({ balance: 1 }).expect(200);
    const pushes = await pushesTo(iphone.pushToken, 3, 30_000);
    expect(pushes).toHaveLength(3);
    expect(pushes[2]!.at - pushes[1]!.at).toBeGreaterThanOrEqual(pushes[1]!.at - pushes[0]!.at - 500);
    expect(
      (await attemptsOnceRecorded(pass.id, 3)).map((a: { attributes: { outcome: string; status: number; attempt: number } }) => [
        a.attributes.outcome,
        a.attributes.status,
        a.attributes.attempt,
      ]),
    ).toEqual([
      ['delivered', 200, 3],
      ['retry', 429, 2],
      ['retry', 503, 1],
    ]);
  }, 40_000);

  it('marks the Apple configuration broken after a 403 and keeps the registrations', async () => {
    const iphone = new SimulatedIphone(service);
    const { pass, pkpass } = await issueAndDownload();
    await iphone.add(pkpass);
    fake.answer((push) => (push.pushToken === iphone.pushToken ? { status: 403, reason: 'BadCertificate' } : undefined));
    await service.api.patch(`/api/v1/loyalty/${pass.id}`).set(auth()).send({ balance: 1 }).expect(200);
    await pushesTo(iphone.pushToken);
    // The job marks the configuration once APNs answered: wait for it.
    const configuration = await pollUntil(
      () => service.api.get(`/admin/v1/accounts/${tenant.accountId}/apple-configurations/${PASS_TYPE_ID}`).set(service.adminAuth()).expect(200),
      (res) => res.body.data.attributes.push.status !== 'ok',
    );
    expect(configuration.body.data.attributes.push).toEqual({
      status: 'certificateRejected',
      detail: 'APNs refused the certificate: 403 BadCertificate',
      at: expect.any(String),
    });
    expect((await service.api.get(`/api/v1/passes/${pass.id}/registrations`).set(auth())).body.data).toHaveLength(1);
    // Uploading the configuration again clears it.
    await setAppleConfiguration(service, tenant.accountId);
    const reset = await service.api.get(`/admin/v1/accounts/${tenant.accountId}/apple-configurations/${PASS_TYPE_ID}`).set(service.adminAuth()).expect(200);
    expect(reset.body.data.attributes.push.status).toBe('ok');
  });
});

describe('logAppleDeviceMessages and listAppleDeviceLogs', () => {
  it('stores what devices log, for the operator', async () => {
    await service.api
      .post('/wallet/apple/v1/log')
      .send({ logs: ['Web service error for pass.com.example.loyalty: the pass was unchanged.', 'second'] })
      .expect(200);
    const res = await service.api.get('/admin/v1/apple-device-logs').set(service.adminAuth()).expect(200);
    expect(res.body.data.slice(0, 2).map((l: { attributes: { message: string } }) => l.attributes.message)).toEqual([
      'second',
      'Web service error for pass.com.example.loyalty: the pass was unchanged.',
    ]);
    expect(res.body.meta.totalCount).toBeGreaterThanOrEqual(2);
  });
});

it('pushes after a restart between the change and the push, exactly once', async () => {
  let first: TestService | undefined = await startTestService({ jobs: 'work', apns, persistent: true });
  let second: TestService | undefined;
  let third: TestService | undefined;
  try {
    const account = await first.createAccount();
    await setAppleConfiguration(first, account.accountId);
    const template = await createTemplate(first, account.token, loyaltyTemplate());
    const pass = await issuePass(first, account.token, template);
    const pkpass = (await first.api.get(`/passes/${pass.id}/apple`).buffer(true).parse(binary).expect(200)).body as Buffer;
    const iphone = new SimulatedIphone(first);
    await iphone.add(pkpass);
    // A service without workers takes the change (its push is queued), then stops before pushing it.
    second = await first.restart({ jobs: 'enqueue', apns, persistent: true });
    first = undefined;
    await second.api.patch(`/api/v1/loyalty/${pass.id}`).set(second.auth(account.token)).send({ balance: 3 }).expect(200);
    third = await second.restart({ jobs: 'work', apns, persistent: true });
    second = undefined;
    await pushesTo(iphone.pushToken);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await pushesTo(iphone.pushToken)).toHaveLength(1);
  } finally {
    await (third ?? second ?? first)?.close();
  }
  // Three services, one after the other, on one persistent data directory: each start opens and
  // migrates it, which on PGlite on a loaded two-core machine took most of 40 s.
}, 120_000);

describe('wallet-messaging batches', () => {
  /** Creates a batch to these passes, sends it now and waits until it has finished. */
  async function sendBatch(passIds: string[], message: string) {
    const entityId = (await service.api.get('/api/v1/entities').set(auth()).expect(200)).body.data[0].id as string;
    const created = await service.api
      .post(`/api/v1/entities/${entityId}/messaging/wallet`)
      .set(auth())
      .send({ batch: { message, scheduledAt: new Date(Date.now() + 3_600_000).toISOString(), recipients: passIds.map((passId) => ({ passId })) } })
      .expect(202);
    const id = created.body.data.id as string;
    for (let i = 0; ; i++) {
      const batch = (await service.api.get(`/api/v1/batches/${id}`).set(auth()).expect(200)).body.data;
      if (batch.attributes.status === 'scheduled') await service.api.post(`/api/v1/batches/${id}/send-now`).set(auth()).expect(200);
      if (['successful', 'completedWithErrors', 'failed'].includes(batch.attributes.status)) return batch;
      if (i > 300) throw new Error(`Batch ${id} is still ${batch.attributes.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('pushes the message to every device of every recipient; the device shows it through the message field', async () => {
    const iphone = new SimulatedIphone(service);
    const first = await issueAndDownload();
    const second = await issueAndDownload();
    const notInstalled = await issueAndDownload();
    await iphone.add(first.pkpass);
    await iphone.add(second.pkpass);
    const batch = await sendBatch([first.pass.id, second.pass.id, notInstalled.pass.id], 'Hello %{member}');
    expect(batch.attributes).toMatchObject({ status: 'successful', recipientCount: 3 });
    expect((await pushesTo(iphone.pushToken, 2)).length).toBe(2);
    const fetched = await iphone.fetch(first.pass.id);
    expect((fetched.passJson as { storeCard: { backFields: unknown[] } }).storeCard.backFields).toContainEqual(
      expect.objectContaining({ key: 'latestMessage', value: 'Hello Guest', changeMessage: '%@' }),
    );
    expect((await attempts(first.pass.id))[0].attributes).toMatchObject({ outcome: 'delivered', batchId: batch.id });
  });

  it('completes with errors when a recipient’s devices cannot be reached, naming it in the errors CSV', async () => {
    const good = new SimulatedIphone(service);
    const bad = new SimulatedIphone(service);
    const reached = await issueAndDownload();
    const unreachable = await issueAndDownload();
    await good.add(reached.pkpass);
    await bad.add(unreachable.pkpass);
    fake.answer((push) => (push.pushToken === bad.pushToken ? { status: 400, reason: 'BadDeviceToken' } : undefined));
    const batch = await sendBatch([reached.pass.id, unreachable.pass.id], 'Closing early today');
    expect(batch.attributes).toMatchObject({ status: 'completedWithErrors', recipientCount: 2 });
    const csv = await service.api.get(`/api/v1/batches/${batch.id}/errors.csv`).set(auth()).expect(200);
    expect(csv.text).toContain(unreachable.pass.id);
    expect(csv.text).toContain('APNs: 400 BadDeviceToken');
    expect(csv.text).not.toContain(reached.pass.id);
  });
});
