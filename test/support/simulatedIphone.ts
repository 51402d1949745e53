/**
 * A simulated iPhone's Apple Wallet, talking to the web service as Apple documents it
 * (https://developer.apple.com/documentation/walletpasses/adding-a-web-service-to-update-passes):
 * adding a pass registers the device with the pass's `webServiceURL` and `authenticationToken`;
 * after a push it lists the serial numbers updated since its last tag and fetches each pass
 * (with `If-Modified-Since`). Requests go through the test service's supertest agent: the pass's
 * `webServiceURL` is `<PUBLIC_BASE_URL>/wallet/apple`, whose path part is what is requested.
 * Its counterpart over real HTTP, for the quickstart example, is examples/simulatedWallet.ts;
 * both read `pass.json` with examples/pkpass.ts.
 */
import { randomBytes } from 'node:crypto';
import { passJsonOf } from '../../examples/pkpass.ts';
import type { TestService } from './testService.ts';

export { passJsonOf };

/** What Wallet keeps of an added pass. */
export interface WalletPass {
  serialNumber: string;
  passTypeIdentifier: string;
  authenticationToken: string;
  webServicePath: string;
  passJson: Record<string, unknown>;
  lastModified: string | undefined;
}

/** A supertest parser that keeps the response body as bytes. */
export const binary = (response: unknown, done: (error: Error | null, body: unknown) => void): void => {
  const res = response as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

/** A device with its library identifier and push token. */
export class SimulatedIphone {
  readonly deviceLibraryIdentifier = randomBytes(16).toString('hex');
  readonly pushToken = randomBytes(32).toString('hex');
  readonly passes = new Map<string, WalletPass>();
  /** The `lastUpdated` tag of the last list call, per pass type. */
  readonly tags = new Map<string, string>();

  constructor(private readonly service: TestService) {}

  /**
   * Adds a downloaded pass: registers for its updates. Fails the test unless the service
   * answers 201 (or 200 when `expectStatus` says so).
   */
  async add(pkpass: Uint8Array, expectStatus = 201): Promise<WalletPass> {
    const json = passJsonOf(pkpass);
    const pass: WalletPass = {
      serialNumber: String(json.serialNumber),
      passTypeIdentifier: String(json.passTypeIdentifier),
      authenticationToken: String(json.authenticationToken),
      webServicePath: new URL(String(json.webServiceURL)).pathname,
      passJson: json,
      lastModified: undefined,
    };
    await this.register(pass).expect(expectStatus);
    this.passes.set(pass.serialNumber, pass);
    return pass;
  }

  /** `POST …/registrations/<type>/<serial>` with this device's push token. */
  register(pass: WalletPass, token = pass.authenticationToken) {
    return this.service.api
      .post(`${pass.webServicePath}/v1/devices/${this.deviceLibraryIdentifier}/registrations/${pass.passTypeIdentifier}/${pass.serialNumber}`)
      .set('Authorization', `ApplePass ${token}`)
      .send({ pushToken: this.pushToken });
  }

  /** Removes a pass from the wallet: `DELETE …/registrations/<type>/<serial>`. */
  async remove(serialNumber: string): Promise<void> {
    const pass = this.passes.get(serialNumber)!;
    await this.service.api
      .delete(`${pass.webServicePath}/v1/devices/${this.deviceLibraryIdentifier}/registrations/${pass.passTypeIdentifier}/${pass.serialNumber}`)
      .set('Authorization', `ApplePass ${pass.authenticationToken}`)
      .expect(200);
    this.passes.delete(serialNumber);
  }

  /** `GET …/devices/<id>/registrations/<type>?passesUpdatedSince=<last tag>`; keeps the new tag. */
  async listUpdated(passTypeIdentifier: string, webServicePath = '/wallet/apple'): Promise<{ status: number; serialNumbers: string[] }> {
    const tag = this.tags.get(passTypeIdentifier);
    const res = await this.service.api
      .get(`${webServicePath}/v1/devices/${this.deviceLibraryIdentifier}/registrations/${passTypeIdentifier}`)
      .query(tag ? { passesUpdatedSince: tag } : {});
    if (res.status === 200) this.tags.set(passTypeIdentifier, res.body.lastUpdated);
    return { status: res.status, serialNumbers: res.status === 200 ? res.body.serialNumbers : [] };
  }

  /**
   * `GET …/passes/<type>/<serial>` with `If-Modified-Since` of the version held; on 200 the new
   * version replaces it.
   * @returns The status and, on 200, the new `pass.json` and bytes.
   */
  async fetch(serialNumber: string): Promise<{ status: number; passJson?: Record<string, unknown>; bytes?: Buffer }> {
    const pass = this.passes.get(serialNumber)!;
    const request = this.service.api
      .get(`${pass.webServicePath}/v1/passes/${pass.passTypeIdentifier}/${pass.serialNumber}`)
      .set('Authorization', `ApplePass ${pass.authenticationToken}`)
      .buffer(true)
      .parse(binary);
    if (pass.lastModified) request.set('If-Modified-Since', pass.lastModified);
    const res = await request;
    if (res.status !== 200) return { status: res.status };
    pass.lastModified = res.headers['last-modified'];
    pass.passJson = passJsonOf(res.body as Buffer);
    return { status: 200, passJson: pass.passJson, bytes: res.body as Buffer };
  }
}
