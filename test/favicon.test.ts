/**
 * The favicon: `GET /favicon.ico` (getFavicon), which browsers request of every site by
 * themselves, answers 204 without a body and without credentials, cached for a day, instead of
 * a JSON 404 that the browser's console reports as an error.
 */
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

describe('getFavicon', () => {
  it('answers 204 No Content, cacheable, to a browser without credentials', async () => {
    const res = await service.api.get('/favicon.ico').set('Accept', 'image/avif,image/webp,image/*,*/*;q=0.8');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('ignores a query string (cache busters)', async () => {
    expect((await service.api.get('/favicon.ico?v=2')).status).toBe(204);
  });

  it('answers 405 with Allow to another method', async () => {
    const res = await service.api.post('/favicon.ico');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
  });
});
