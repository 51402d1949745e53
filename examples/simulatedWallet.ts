/**
 * A simulated iPhone's Apple Wallet, talking over HTTP to a running service's Apple web service as
 * Apple documents it ("Adding a web service to update passes",
 * https://developer.apple.com/documentation/walletpasses/adding-a-web-service-to-update-passes):
 * adding a pass registers the device for its updates with the pass's `authenticationToken`
 * (`POST <webServiceURL>/v1/devices/<device>/registrations/<pass type>/<serial>`, body
 * `{"pushToken": …}`); after a push it lists the serial numbers updated since the tag of its last
 * list (`GET …/devices/<device>/registrations/<pass type>?passesUpdatedSince=<tag>`) and fetches
 * each pass (`GET <webServiceURL>/v1/passes/<pass type>/<serial>`, with `If-Modified-Since`).
 *
 * Requests go to the service's base URL with the path of the pass's `webServiceURL`: that URL
 * carries the service's public address (`PUBLIC_BASE_URL`), which need not be the address the
 * simulation reaches the service at (e.g. through a proxy). The push itself arrives at APNs, not
 * here: the caller watches its APNs stand-in for this device's {@link SimulatedWallet.pushToken}.
 * The tests' counterpart, on an in-process service, is test/support/simulatedIphone.ts.
 *
 * @module examples/simulatedWallet
 */
import { randomBytes } from 'node:crypto';
import { passJsonOf, type PassJson } from './pkpass.ts';

/** What Wallet keeps of an added pass. */
export interface WalletPass {
  serialNumber: string;
  passTypeIdentifier: string;
  authenticationToken: string;
  /** The path of the pass's `webServiceURL` (`/wallet/apple` on this service). */
  webServicePath: string;
  passJson: PassJson;
  /** `Last-Modified` of the version held, sent back as `If-Modified-Since`. */
  lastModified: string | undefined;
}

/** The web service answered a status the device does not expect; `document` is its body (JSON when it is). */
export class WebServiceRequestFailed extends Error {
  constructor(
    readonly request: string,
    readonly status: number,
    readonly document: unknown,
  ) {
    super(`${request} failed with HTTP ${status}`);
  }
}

/** Reads a response body as JSON when it is, else as text (for error reports). */
async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A device with a random library identifier and push token. */
export class SimulatedWallet {
  /** Wallet's identifier of the device (opaque to the service). */
  readonly deviceLibraryIdentifier = randomBytes(16).toString('hex');
  /** The APNs token the device registers (64 hex digits, as a device's). */
  readonly pushToken = randomBytes(32).toString('hex');
  readonly passes = new Map<string, WalletPass>();
  /** The `lastUpdated` tag of the last list, per pass type. */
  private readonly tags = new Map<string, string>();

  /** @param baseUrl The service's base URL (`http://127.0.0.1:3000`). */
  constructor(private readonly baseUrl: string) {}

  private url(webServicePath: string, path: string): string {
    return `${this.baseUrl.replace(/\/+$/, '')}${webServicePath}${path}`;
  }

  /**
   * Adds a downloaded pass: registers this device for its updates.
   * @returns The pass as kept, and the service's answer: 201 (registered) or 200 (already was).
   * @throws Error when the pass carries no web service; WebServiceRequestFailed on any other status.
   */
  async add(pkpass: Uint8Array): Promise<{ pass: WalletPass; status: number }> {
    const passJson = passJsonOf(pkpass);
    if (!passJson.webServiceURL || !passJson.authenticationToken)
      throw new Error('The pass has no webServiceURL or authenticationToken: it cannot be updated.');
    const pass: WalletPass = {
      serialNumber: passJson.serialNumber,
      passTypeIdentifier: passJson.passTypeIdentifier,
      authenticationToken: passJson.authenticationToken,
      webServicePath: new URL(passJson.webServiceURL).pathname.replace(/\/+$/, ''),
      passJson,
      lastModified: undefined,
    };
    const response = await fetch(
      this.url(pass.webServicePath, `/v1/devices/${this.deviceLibraryIdentifier}/registrations/${pass.passTypeIdentifier}/${pass.serialNumber}`),
      {
        method: 'POST',
        headers: { authorization: `ApplePass ${pass.authenticationToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ pushToken: this.pushToken }),
      },
    );
    if (response.status !== 201 && response.status !== 200) throw new WebServiceRequestFailed('registerDevice', response.status, await bodyOf(response));
    await response.body?.cancel();
    this.passes.set(pass.serialNumber, pass);
    return { pass, status: response.status };
  }

  /**
   * Lists the serial numbers of this device's passes of a type updated since the last list (all
   * of them on the first), and keeps the new tag.
   * @returns 200 with the serial numbers and the tag, or 204 (nothing updated) with none.
   * @throws WebServiceRequestFailed on any other status.
   */
  async listUpdated(passTypeIdentifier: string, webServicePath: string): Promise<{ status: number; serialNumbers: string[]; lastUpdated?: string }> {
    const tag = this.tags.get(passTypeIdentifier);
    const query = tag ? `?passesUpdatedSince=${encodeURIComponent(tag)}` : '';
    const response = await fetch(this.url(webServicePath, `/v1/devices/${this.deviceLibraryIdentifier}/registrations/${passTypeIdentifier}${query}`));
    if (response.status === 204) return { status: 204, serialNumbers: [] };
    if (response.status !== 200) throw new WebServiceRequestFailed('listUpdatedPasses', response.status, await bodyOf(response));
    const { serialNumbers, lastUpdated } = (await response.json()) as { serialNumbers: string[]; lastUpdated: string };
    this.tags.set(passTypeIdentifier, lastUpdated);
    return { status: 200, serialNumbers, lastUpdated };
  }

  /**
   * Fetches the latest version of a pass held, with `If-Modified-Since` of the version held; a
   * new version (200) replaces it.
   * @returns 200 with the new file's bytes and `Last-Modified`, or 304 (unchanged) with none.
   * @throws WebServiceRequestFailed on any other status.
   */
  async fetchLatest(serialNumber: string): Promise<{ status: number; bytes?: Uint8Array; lastModified?: string }> {
    const pass = this.passes.get(serialNumber);
    if (!pass) throw new Error(`The wallet holds no pass ${serialNumber}.`);
    const response = await fetch(this.url(pass.webServicePath, `/v1/passes/${pass.passTypeIdentifier}/${pass.serialNumber}`), {
      headers: { authorization: `ApplePass ${pass.authenticationToken}`, ...(pass.lastModified ? { 'if-modified-since': pass.lastModified } : {}) },
    });
    if (response.status === 304) return { status: 304 };
    if (response.status !== 200) throw new WebServiceRequestFailed('getLatestApplePass', response.status, await bodyOf(response));
    const bytes = new Uint8Array(await response.arrayBuffer());
    pass.lastModified = response.headers.get('last-modified') ?? undefined;
    pass.passJson = passJsonOf(bytes);
    return { status: 200, bytes, ...(pass.lastModified ? { lastModified: pass.lastModified } : {}) };
  }
}
