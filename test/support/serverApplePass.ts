/**
 * An Apple pass on a server process (test/support/serverProcess.ts), set up through its HTTP API
 * as an operator and an issuer would, and a simulated iPhone adding it: the start of the tests
 * that run the server as a process and follow a change of a pass to its push
 * (test/tracing.test.ts, test/passChangeCrashRecovery.test.ts). The server must accept development
 * certificates (`APPLE_ALLOW_DEVELOPMENT_CERTIFICATES=true`) and work its jobs.
 */
import { randomBytes } from 'node:crypto';
import { passJsonOf, type PassJson } from '../../examples/pkpass.ts';
import { PASS_TYPE_ID, TEAM_ID, testCertificates } from './appleCredentials.ts';
import { loyaltyTemplate } from './passes.ts';
import { pollUntil } from './poll.ts';
import { call, type Started } from './serverProcess.ts';

/**
 * Creates an account through the administration API, sets its Apple configuration for
 * {@link PASS_TYPE_ID} with the development chain (test/support/appleCredentials.ts), creates a
 * {@link loyaltyTemplate} and waits (up to 60 s) until it is processed, and issues a pass of it for
 * member Ada. Expects every step to succeed (201; 200 or 201; 202; processed; 200).
 * @returns The account's id and API key, and the ids of the template and the pass.
 */
export async function issueApplePass(
  server: Started,
  adminToken: string,
  accountName: string,
): Promise<{ accountId: string; token: string; templateId: string; passId: string }> {
  const account = await call(server, adminToken, 'POST', '/admin/v1/accounts', { account: { name: accountName } });
  expect(account.status).toBe(201);
  const accountId = account.body.data.id as string;
  const token = account.body.included[0].attributes.token as string;
  const certificates = testCertificates();
  const apple = await call(server, adminToken, 'PUT', `/admin/v1/accounts/${accountId}/apple-configurations/${PASS_TYPE_ID}`, {
    appleConfiguration: {
      teamIdentifier: TEAM_ID,
      organizationName: 'Coffee Club',
      certificate: certificates.certificatePem,
      privateKey: certificates.privateKeyPem,
      wwdrCertificate: certificates.wwdrCertificatePem,
    },
  });
  expect([200, 201]).toContain(apple.status);
  const template = await call(server, token, 'POST', '/api/v1/pass-templates', { passTemplate: loyaltyTemplate() });
  expect(template.status).toBe(202);
  const templateId = template.body.id as string;
  const processed = await pollUntil(
    async () => (await call(server, token, 'GET', `/api/v1/pass-templates/${templateId}`)).body.data.attributes,
    (attributes) => attributes.processingStatus !== 'processing',
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  expect(processed.processingStatus).not.toBe('failed');
  expect(processed.processingStatus).not.toBe('processing');
  const issued = await call(server, token, 'POST', `/api/v1/passes?passTemplate=${templateId}`, { pass: { member: 'Ada' } });
  expect(issued.status).toBe(200);
  return { accountId, token, templateId, passId: issued.body.data.id as string };
}

/**
 * A simulated iPhone adds the pass: downloads its `.pkpass` (`GET /passes/{id}/apple`, no bearer
 * token; 200 expected, a pass of {@link PASS_TYPE_ID}) and registers a new device for its updates
 * with a new push token and the pass's authentication token (201 expected).
 * @returns The pass's `pass.json` and the device's push token.
 */
export async function addToIphone(server: Started, passId: string): Promise<{ passJson: PassJson; pushToken: string }> {
  const download = await fetch(`${server.url}/passes/${passId}/apple`);
  expect(download.status).toBe(200);
  const passJson = passJsonOf(new Uint8Array(await download.arrayBuffer()));
  expect(passJson.passTypeIdentifier).toBe(PASS_TYPE_ID);
  const deviceLibraryIdentifier = randomBytes(16).toString('hex');
  const pushToken = randomBytes(32).toString('hex');
  const registration = `/wallet/apple/v1/devices/${deviceLibraryIdentifier}/registrations/${passJson.passTypeIdentifier}/${passJson.serialNumber}`;
  const registered = await fetch(`${server.url}${registration}`, {
    method: 'POST',
    headers: { Authorization: `ApplePass ${passJson.authenticationToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ pushToken }),
  });
  expect(registered.status).toBe(201);
  return { passJson, pushToken };
}
