/**
 * The APNs stand-in of the tests (test/support/fakeApns.ts: HTTP/2 over TLS on 127.0.0.1, asking
 * for a client certificate, answering 200) as a process of its own, for running the quickstart
 * example against a real server (scripts/exampleAgainstFreshServer.sh):
 *
 *   FAKE_APNS_DIR=/tmp/apns FAKE_APNS_PUSHES=/tmp/apns/pushes.jsonl tsx scripts/fakeApnsServer.ts
 *
 * - `FAKE_APNS_DIR` (required): a directory where it writes `ca.pem`, its self-signed certificate
 *   (the server trusts it through `NODE_EXTRA_CA_CERTS`), and then `url`, its base URL
 *   (`https://localhost:<port>`, the server's `APNS_URL`). `url` is written last, once it listens:
 *   its presence means ready.
 * - `FAKE_APNS_PORT`: the port on 127.0.0.1 (default: a free one).
 * - `FAKE_APNS_PUSHES`: a file to which every push received is appended as one JSON line, the
 *   fields of `ReceivedPush` (`pushToken`, `topic`, `pushType`, `priority`, `body`,
 *   `clientCertificateUid`, `at` in ms since the epoch). Without it pushes are only counted.
 *
 * Runs until SIGTERM or SIGINT, then closes and prints how many pushes it received. Exits 2 on a
 * missing or unusable variable, 1 when it cannot listen.
 *
 * @module scripts/fakeApnsServer
 */
import { appendFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { startFakeApns } from '../test/support/fakeApns.ts';

const dir = process.env.FAKE_APNS_DIR;
const pushesFile = process.env.FAKE_APNS_PUSHES ? resolve(process.env.FAKE_APNS_PUSHES) : undefined;
const port = Number(process.env.FAKE_APNS_PORT || 0);
if (!dir) {
  console.error('FAKE_APNS_DIR is not set: give a directory for ca.pem and url.');
  process.exit(2);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`FAKE_APNS_PORT must be a port number, got "${process.env.FAKE_APNS_PORT}".`);
  process.exit(2);
}

let received = 0;
try {
  await mkdir(dir, { recursive: true });
  const fake = await startFakeApns({
    port,
    onPush(push) {
      received++;
      // Synchronous, so that a line is whole in the file before the push is answered.
      if (pushesFile) appendFileSync(pushesFile, `${JSON.stringify(push)}\n`);
    },
  });
  await writeFile(join(dir, 'ca.pem'), fake.ca);
  // Written under another name and renamed: a reader never sees a half-written url.
  await writeFile(join(dir, 'url.tmp'), `${fake.url}\n`);
  await rename(join(dir, 'url.tmp'), join(dir, 'url'));
  console.log(`Fake APNs listening on ${fake.url}${pushesFile ? `, pushes appended to ${pushesFile}` : ''}`);
  const stop = () => {
    void fake.close().then(() => {
      console.log(`Fake APNs stopped after ${received} push${received === 1 ? '' : 'es'}.`);
      process.exit(0);
    });
  };
  process.once('SIGTERM', stop).once('SIGINT', stop);
} catch (error) {
  console.error(`Fake APNs could not start: ${(error as Error).message}`);
  process.exit(1);
}
