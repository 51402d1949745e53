/**
 * Routing follows the contract: one handler per operationId, no handler without an operation.
 */
import { loadApiDocument } from '../src/app.ts';
import { handlers } from '../src/operations.ts';
import { documentOperations, handlerCoverage, operationHandlers } from '../src/http/routes.ts';
import type { HandlerMap } from '../src/http/operation.ts';

const document = loadApiDocument();

it('has a handler for every operation and an operation for every handler', () => {
  expect(handlerCoverage(document, handlers)).toEqual({ missingHandlers: [], unknownHandlers: [] });
  expect(documentOperations(document).length).toBe(Object.keys(handlers).length);
});

it('refuses to mount when a handler is missing or unknown', () => {
  const { getEntity: _dropped, ...missing } = handlers;
  expect(() => operationHandlers(document, missing as HandlerMap)).toThrow(/Without handler: getEntity/);
  const extra = { ...handlers, deleteEverything: handlers.getHealth } as unknown as HandlerMap;
  expect(() => operationHandlers(document, extra)).toThrow(/Without operation: deleteEverything/);
});

it('gives every operation a unique camelCase operationId, a tag and error responses', () => {
  const operations = documentOperations(document);
  expect(new Set(operations.map((o) => o.operationId)).size).toBe(operations.length);
  for (const { path, method } of operations) {
    const operation = (document.paths[path] as Record<string, { tags?: string[]; responses: Record<string, unknown> }>)[method]!;
    expect(operation.tags).toHaveLength(1);
    expect(Object.keys(operation.responses)).toContain('500');
  }
});

it('names every webhook send<Event>Webhook and no operation of the paths so (src/http/operation.ts tells them apart by name)', () => {
  const webhookIds = Object.values((document as { webhooks?: Record<string, { post: { operationId: string } }> }).webhooks ?? {}).map(
    (item) => item.post.operationId,
  );
  expect(webhookIds.length).toBeGreaterThan(0);
  for (const id of webhookIds) expect(id).toMatch(/^send[A-Za-z]+Webhook$/);
  expect(
    documentOperations(document)
      .filter((o) => /^send[A-Za-z]+Webhook$/.test(o.operationId))
      .map((o) => o.operationId),
  ).toEqual([]);
});
