/**
 * The floors of src/ and the rules between them, checked by dependency-cruiser
 * (https://github.com/sverweij/dependency-cruiser/blob/main/doc/rules-reference.md) in
 * test/architecture.test.ts and `npm run lint:imports`. From the top down:
 *
 *   wiring   server.ts worker.ts app.ts runtime.ts operations.ts queues.ts admin/
 *   api      api/<tag>/<operationId>.ts: handlers, request in, response out
 *   http     the HTTP edge: routing from the contract, authentication, errors, idempotency
 *   delivery after a pass changes: outbox relay, Apple push, Google sync, webhook delivery, pass files
 *   domain   domain/<aggregate>/: rules, services, stores (all SQL), serializers, the aggregate's jobs
 *   deps     deps.ts: the Runtime type (what handlers and jobs run with)
 *   wallet   wallet/apple, wallet/google: pure renderers and protocol clients
 *   base     db/ jobs/ net/ security/ csv/ telemetry/ metrics.ts cluster.ts shutdown.ts, and the ground: errors.ts clock.ts config.ts logger.ts packageRoot.ts
 *
 * An import may only go down. No import cycle anywhere in src/.
 */
const wiring = '^src/(server|worker|app|runtime|operations|queues)[.]ts$|^src/admin/';
const floors = {
  api: '^src/api/',
  http: '^src/http/',
  delivery: '^src/delivery/',
  domain: '^src/domain/',
  deps: '^src/deps[.]ts$',
  wallet: '^src/wallet/',
  base: '^src/(db|jobs|net|security|csv|telemetry)/|^src/(metrics|cluster|shutdown|errors|clock|config|logger|packageRoot)[.]ts$',
};
const above = {
  api: [wiring],
  http: [wiring, floors.api],
  delivery: [wiring, floors.api, floors.http],
  domain: [wiring, floors.api, floors.http, floors.delivery],
  deps: [wiring, floors.api, floors.http, floors.delivery, floors.domain],
  wallet: [wiring, floors.api, floors.http, floors.delivery, floors.domain, floors.deps],
  base: [wiring, floors.api, floors.http, floors.delivery, floors.domain, floors.deps, floors.wallet],
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle among src files: break it by moving the shared part down a floor.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...Object.entries(above).map(([floor, higher]) => ({
      name: `${floor}-imports-only-down`,
      severity: 'error',
      comment: `src/${floor} may import only from the floors below it (see the top of .dependency-cruiser.cjs).`,
      from: { path: floors[floor] },
      to: { path: higher.join('|') },
    })),
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(generated|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.json'] },
  },
};
