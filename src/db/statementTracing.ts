/**
 * Spans for the statements of the embedded database (PGlite), which no OpenTelemetry
 * instrumentation knows: every statement run through the PGlite instance — by Prisma's adapter,
 * pg-boss, the driver executor or a session — inside a span of the service gets a client span,
 * named and described as `@opentelemetry/instrumentation-pg` describes PostgreSQL's
 * (`pglite.query:<operation>`, `db.system` `postgresql`, `db.query.text`/`db.statement` the
 * sanitised text, never the parameters; OpenTelemetry semantic conventions, "Database spans",
 * https://opentelemetry.io/docs/specs/semconv/database/database-spans/). Statements outside a span
 * (pg-boss's polling) get none. Applied only when tracing is on (src/db/database.ts).
 *
 * @module db/statementTracing
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { SpanKind } from '@opentelemetry/api';
import { failSpan, hasActiveSpan, sanitizeStatement, serviceTracer, statementOperation } from '../telemetry/tracing.ts';

/** The statement-running methods of a PGlite instance or transaction. */
type Statements = Pick<Transaction, 'query' | 'exec'>;

/** Runs one statement in a client span, when a span is active. */
function traced<T>(sql: string, run: () => Promise<T>): Promise<T> {
  if (!hasActiveSpan()) return run();
  const statement = sanitizeStatement(sql);
  const operation = statementOperation(sql);
  const span = serviceTracer().startSpan(`pglite.query:${operation}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'db.system': 'postgresql',
      'db.system.name': 'postgresql',
      'db.operation.name': operation,
      'db.query.text': statement,
      'db.statement': statement,
    },
  });
  return run().then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      failSpan(span, error);
      span.end();
      throw error;
    },
  );
}

/** Replaces `query` and `exec` of `target` (an instance or a transaction) by traced ones. */
function traceStatements(target: Statements): void {
  const query = target.query.bind(target);
  const exec = target.exec.bind(target);
  target.query = ((sql: string, params?: unknown[], options?: Parameters<Statements['query']>[2]) =>
    traced(sql, () => query(sql, params, options))) as Statements['query'];
  target.exec = (sql, options) => traced(sql, () => exec(sql, options));
}

/**
 * Traces every statement run through `pglite` from now on, in transactions too.
 * @param pglite The instance, before anything else holds it (Prisma's adapter, pg-boss).
 */
export function traceEmbeddedStatements(pglite: PGlite): void {
  traceStatements(pglite);
  const transaction = pglite.transaction.bind(pglite);
  pglite.transaction = (work) =>
    transaction((tx) => {
      traceStatements(tx);
      return work(tx);
    });
}
