/**
 * Health probes: getHealth (liveness) and getReadiness (database reachable). No authentication.
 */
import { readFileSync } from 'node:fs';
import { startTestService } from './support/testService.ts';

it('reports live and ready, then not ready once the database is gone', async () => {
  const service = await startTestService();
  expect((await service.api.get('/healthz').expect(200)).body).toEqual({ status: 'ok' });
  expect((await service.api.get('/readyz').expect(200)).body).toEqual({ status: 'ok', checks: { database: 'ok' } });
  await service.database.db.close();
  expect((await service.api.get('/readyz').expect(503)).body).toEqual({ status: 'unavailable', checks: { database: 'unavailable' } });
  expect((await service.api.get('/healthz').expect(200)).body).toEqual({ status: 'ok' });
  await service.close();
});

it('serves the contract and the docs page', async () => {
  const service = await startTestService();
  const json = await service.api.get('/openapi.json').expect(200);
  expect(json.body.openapi).toBe('3.1.0');
  await service.api.get('/openapi.yaml').expect(200).expect('Content-Type', /yaml/);
  const docs = await service.api.get('/docs').expect(200).expect('Content-Type', /html/);
  expect(docs.text).toContain('Wallet Pass Service API');
  await service.api.post('/healthz').expect(405);
  await service.close();
});

it('names the server that serves the contract in servers; the committed bundle keeps the local default', async () => {
  const committedJson = JSON.parse(readFileSync(new URL('../generated/openapi.json', import.meta.url), 'utf8'));
  const committedYaml = readFileSync(new URL('../generated/openapi.yaml', import.meta.url), 'utf8');
  expect(committedJson.servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:3000' })]);
  expect(committedYaml).toMatch(/^servers:\n {2}- url: http:\/\/127\.0\.0\.1:3000\n/m);

  const service = await startTestService({ config: { publicBaseUrl: 'https://wallet.example.com/passes' } });
  const json = await service.api.get('/openapi.json').expect(200).expect('Content-Type', /json/);
  expect(json.body.servers).toEqual([{ url: 'https://wallet.example.com/passes', description: expect.any(String) }]);
  // Only servers differs from the committed bundle.
  expect({ ...json.body, servers: committedJson.servers }).toEqual(committedJson);

  const yaml = await service.api.get('/openapi.yaml').expect(200).expect('Content-Type', /yaml/);
  expect(yaml.text).toMatch(/^servers:\n {2}- url: "https:\/\/wallet\.example\.com\/passes"\n {4}description: "[^"\n]+"\n(?=security:)/m);
  expect(yaml.text.replace(/^servers:\n(?:[ -].*\n)*/m, '')).toBe(committedYaml.replace(/^servers:\n(?:[ -].*\n)*/m, ''));
  await service.close();
});
