/**
 * A stand-in for the Apple Push Notification service, for tests and benchmarks: HTTP/2 over TLS
 * on 127.0.0.1 with a self-signed certificate (CN localhost) — or, in the field suite, at
 * api.push.apple.com's simulated address with a certificate of the test CA — asking for a client certificate
 * and recording, for every push, the path, the APNs headers, the body and the client
 * certificate's subject UID. Answers 200 by default; `answer` programs other answers (410 with a
 * timestamp, 400 BadDeviceToken, 403, 429, 5xx, a delay), as Apple documents them
 * (https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns).
 * It depends on Node and node-forge only, so that scripts (scripts/fakeApnsServer.ts, the
 * benchmarks) run it outside Jest too.
 */
import { randomUUID } from 'node:crypto';
import { createSecureServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import forge from 'node-forge';

/** A push the stand-in received. */
export interface ReceivedPush {
  path: string;
  pushToken: string;
  topic: string | undefined;
  pushType: string | undefined;
  priority: string | undefined;
  body: string;
  /** The subject UID of the client certificate (the pass type identifier of a Pass Type ID certificate). */
  clientCertificateUid: string | undefined;
  at: number;
}

/** A programmed answer. */
export interface FakeAnswer {
  status: number;
  reason?: string;
  /** For 410: when the token stopped being valid, ms since the epoch. */
  timestamp?: number;
  /** Answer after this long, in ms. */
  delayMs?: number;
}

/** The running stand-in. */
export interface FakeApns {
  /** `https://localhost:<port>` by default. */
  url: string;
  /** Its certificate (PEM): what clients trust. */
  ca: string;
  /** Every push received, in order. */
  requests: ReceivedPush[];
  /** Answers per push: the first rule that returns an answer wins; none: 200. */
  answer(rule: (push: ReceivedPush) => FakeAnswer | undefined): void;
  /** Forgets the requests and the rules. */
  reset(): void;
  /** Closes every client session with GOAWAY (clients must reconnect). */
  closeSessions(): void;
  close(): Promise<void>;
}

/** A self-signed TLS server certificate for localhost and 127.0.0.1. */
function serverCertificate(): { key: string; cert: string } {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600 * 1000);
  const name = [{ name: 'commonName', value: 'localhost' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { key: forge.pki.privateKeyToPem(keys.privateKey), cert: forge.pki.certificateToPem(cert) };
}

let selfSigned: { key: string; cert: string } | undefined;

/** Options of {@link startFakeApns}. */
export interface FakeApnsOptions {
  /** The port (default 0: a free one). */
  port?: number;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  /** The host name of `url` (default localhost). */
  hostname?: string;
  /** Its TLS key and certificate chain (default: a self-signed certificate for localhost, which `ca` is). */
  certificate?: { key: string; cert: string };
  /** Called with every push as it arrives, before it is answered (after `requests` holds it). */
  onPush?: (push: ReceivedPush) => void;
}

/**
 * Starts the stand-in on 127.0.0.1.
 * @throws The listen error (e.g. `EADDRINUSE` when `options.port` is taken).
 */
export async function startFakeApns(options: FakeApnsOptions = {}): Promise<FakeApns> {
  if (!options.certificate) selfSigned ??= serverCertificate();
  const credentials = options.certificate ?? selfSigned!;
  const requests: ReceivedPush[] = [];
  let rules: ((push: ReceivedPush) => FakeAnswer | undefined)[] = [];
  const sessions = new Set<ServerHttp2Session>();
  const server: Http2Server = createSecureServer({ ...credentials, requestCert: true, rejectUnauthorized: false, settings: { maxConcurrentStreams: 1000 } });
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const path = String(headers[':path']);
      const peer = (stream.session?.socket as TLSSocket | undefined)?.getPeerCertificate();
      const push: ReceivedPush = {
        path,
        pushToken: path.replace(/^\/3\/device\//, ''),
        topic: headers['apns-topic'] as string | undefined,
        pushType: headers['apns-push-type'] as string | undefined,
        priority: headers['apns-priority'] as string | undefined,
        body: Buffer.concat(chunks).toString('utf8'),
        clientCertificateUid: (peer?.subject as unknown as Record<string, string> | undefined)?.UID,
        at: Date.now(),
      };
      requests.push(push);
      options.onPush?.(push);
      const answer = rules.map((rule) => rule(push)).find(Boolean) ?? { status: 200 };
      const respond = () => {
        if (stream.destroyed) return;
        if (answer.status === 200) {
          stream.respond({ ':status': 200, 'apns-id': randomUUID() });
          stream.end();
          return;
        }
        stream.respond({ ':status': answer.status, 'content-type': 'application/json', 'apns-id': randomUUID() });
        stream.end(
          JSON.stringify({ reason: answer.reason ?? 'InternalServerError', ...(answer.timestamp === undefined ? {} : { timestamp: answer.timestamp }) }),
        );
      };
      if (answer.delayMs) setTimeout(respond, answer.delayMs).unref();
      else respond();
    });
    stream.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://${options.hostname ?? 'localhost'}:${port}`,
    ca: credentials.cert,
    requests,
    answer: (rule) => void rules.push(rule),
    reset() {
      requests.length = 0;
      rules = [];
    },
    closeSessions() {
      for (const session of sessions) session.goaway();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}
