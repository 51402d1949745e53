/**
 * The README's Quickstart works as written: the template body it writes to coffee-club-card.json
 * and the pass body it sends are read out of README.md and sent as they are, through the same
 * operations (createPassTemplate, getPassTemplate until processed, createPass, the Apple file),
 * so a newcomer's copy-paste is never refused. The shell around them (variables, the wait loop)
 * was run against a fresh `npm start`; this keeps the bodies true as the contract changes.
 */
import { readFileSync } from 'node:fs';
import { setAppleConfiguration } from './support/appleCredentials.ts';
import { pollUntil } from './support/poll.ts';
import { startTestService, type TestService } from './support/testService.ts';

const readme = readFileSync('README.md', 'utf8');
const quickstart = readme.slice(readme.indexOf('## Quickstart\n'), readme.indexOf('\n## ', readme.indexOf('## Quickstart\n') + 1));

/** The template body: the heredoc written to coffee-club-card.json. */
function templateBody(): unknown {
  const match = /cat > coffee-club-card\.json <<'JSON'\n([\s\S]*?)\nJSON\n/.exec(quickstart);
  if (!match) throw new Error("The README Quickstart has no template body (cat > coffee-club-card.json <<'JSON' … JSON)");
  return JSON.parse(match[1]!);
}

/** The pass body: the `-d '…'` of the POST to /api/v1/passes, and that request's query. */
function passRequest(): { query: string; body: unknown } {
  const match = /"\$BASE\/api\/v1\/passes\?passTemplate=\$TEMPLATE_ID([^"]*)"[\s\S]*?-d '([^']+)'/.exec(quickstart);
  if (!match) throw new Error('The README Quickstart has no pass request (POST "$BASE/api/v1/passes?passTemplate=$TEMPLATE_ID…" -d \'…\')');
  return { query: match[1]!, body: JSON.parse(match[2]!) };
}

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ jobs: 'work' });
});
afterAll(() => service.close());

it('accepts the template and the pass the README Quickstart sends, and serves the pass file', async () => {
  const { accountId, token } = await service.createAccount('Acme Coffee');
  await service.createEntity(accountId, 'Soho');

  const created = await service.api
    .post('/api/v1/pass-templates')
    .set(service.auth(token))
    .send(templateBody() as object);
  expect({ status: created.status, processingStatus: created.body.attributes?.processingStatus }).toEqual({ status: 202, processingStatus: 'processing' });
  // The README's wait loop: read the template until processingStatus is no longer `processing`.
  const template = await pollUntil(
    () => service.api.get(`/api/v1/pass-templates/${created.body.id}`).set(service.auth(token)),
    (res) => res.body.data?.attributes?.processingStatus !== 'processing',
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(template.body.data.attributes).not.toHaveProperty('processingStatus');

  const { query, body } = passRequest();
  const pass = await service.api
    .post(`/api/v1/passes?passTemplate=${created.body.id}${query}`)
    .set(service.auth(token))
    .send(body as object);
  expect(pass.status).toBe(200);
  expect(pass.body.data.attributes).toMatchObject({
    extId: 'member-1042',
    barcode: { type: 'qr', source: 'extId', value: 'member-1042', displayText: 'member-1042' },
    downloadUrl: `http://wallet.test/passes/${pass.body.data.id}`,
  });

  // Step 2 (development Apple credentials, here the test suite's), then the file the holder page offers an iPhone.
  await setAppleConfiguration(service, accountId);
  const file = await service.api.get(`/passes/${pass.body.data.id}/apple`).buffer(true);
  expect({ status: file.status, type: file.headers['content-type'] }).toEqual({ status: 200, type: 'application/vnd.apple.pkpass' });
}, 90_000);
