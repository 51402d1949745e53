/**
 * Health probes: getHealth (liveness) and getReadiness (database reachable). No authentication.
 */
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
