/**
 * Opens the database: PostgreSQL through `@prisma/adapter-pg` when a connection string is given,
 * otherwise the embedded, in-process PGlite through `pglite-prisma-adapter`. Both speak the same
 * PostgreSQL dialect, so everything above this module is the same for both. With tracing on
 * (src/telemetry/tracing.ts), statements get spans: PostgreSQL's from the SDK's pg instrumentation
 * (src/telemetry/sdk.ts), PGlite's from src/db/statementTracing.ts.
 *
 * @module db/database
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../../generated/prisma/client.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { CommitSignals } from './afterCommit.ts';
import { retryingContention } from './contention.ts';
import { pgliteListen, postgresNotifications, type Listen } from './notifications.ts';
import { traceEmbeddedStatements } from './statementTracing.ts';
import { tracingEnabled } from '../telemetry/tracing.ts';

export type { PrismaClient };

/**
 * The client or an interactive transaction (`prisma.$transaction(async (tx) => …)`): what store
 * functions take when callers may run them inside a transaction. A PrismaClient is one.
 */
export type PrismaExecutor = Prisma.TransactionClient;

/**
 * What SQL-only store functions need of their caller: Prisma's raw-statement methods. A Prisma
 * client or interactive transaction is one, and so is the driver transaction of
 * {@link Database.writeSql}, so such functions run in either. Rows come back as the executor
 * parses them: through the driver as node-postgres (or PGlite) does — `timestamptz` → Date,
 * `json` → value, `int4` → number, arrays of built-in types → arrays; `int8`, `numeric` and
 * arrays of enums → strings — so such functions select `int4`, text and built-in arrays only.
 */
export interface SqlExecutor {
  /** A statement's rows (a tagged template or a Prisma.Sql). */
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  /** A statement's affected row count (a tagged template or a Prisma.Sql). */
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
  /** A statement's rows, from text with `$1`… placeholders (pg-boss's `fromPrisma` adapter calls it). */
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/** One dedicated database session, for work that needs session state (advisory locks). */
export interface SessionConnection {
  /** Runs one parameterised statement and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements (simple query protocol, no parameters). */
  exec(sql: string): Promise<void>;
  /** Ends the session (releases its advisory locks). */
  close(): Promise<void>;
}

/**
 * How a library with its own driver reaches the same database (pg-boss, src/jobs/queue.ts): the
 * PGlite instance itself (it has one connection, so it cannot be opened twice), or the
 * PostgreSQL connection string (and the pool, for libraries that take one).
 */
export type DatabaseDriver = { kind: 'pglite'; pglite: PGlite } | { kind: 'postgresql'; connectionString: string; pool: pg.Pool };

/** An open database. */
export interface Database {
  /** `pglite` for the embedded database, `postgresql` for a server. */
  readonly kind: 'pglite' | 'postgresql';
  /** The Prisma client every repository uses (reads, and writes that are one statement). */
  readonly prisma: PrismaClient;
  /**
   * Runs `work` in a write transaction, the one place that opens them: every handler, job and
   * the idempotency guard writes through it, and services and stores take the transaction from
   * their caller. Options: {@link WRITE_TRANSACTION}. Commits when `work` resolves, rolls back
   * when it throws (and rethrows). A transaction aborted by a deadlock or serialization failure
   * runs again from the start, a bounded number of times (src/db/contention.ts), so `work` must
   * do nothing outside the database that cannot be done twice.
   */
  write<T>(work: (tx: PrismaExecutor) => Promise<T>): Promise<T>;
  /**
   * {@link Database.write} for work that is SQL statements only, through the driver instead of
   * Prisma's interactive transaction: `BEGIN`, the statements and `COMMIT` on one pooled
   * node-postgres client (on PGlite inside `pglite.transaction`, which queues behind every other
   * transaction on its one connection, Prisma's included). For hot writes of a few statements
   * (the pass-change outbox's relay): measured on a loyalty update before it became one
   * autocommit statement, ≈ 1,900 µs of CPU per request in Prisma's interactive transaction with
   * six round trips, ≈ 950 µs here with them folded into one statement (`npm run bench --
   * passesAndLoyalty`). Commits when `work` resolves, rolls back when it throws (and rethrows);
   * retried on contention as {@link Database.write} is.
   */
  writeSql<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** The same database for libraries that bring their own driver; closed by `close()`. */
  readonly driver: DatabaseDriver;
  /**
   * Opens a dedicated session. On PostgreSQL a new connection outside the pool; on PGlite (a
   * single connection) exclusive use of it until `close()`: other sessions wait.
   */
  openSession(): Promise<SessionConnection>;
  /**
   * Subscribes to a notification channel (`LISTEN`; src/db/notifications.ts): what other
   * processes and nodes commit with `pg_notify(channel, payload)` reaches this process. Closed
   * with the database.
   */
  listen: Listen;
  /**
   * Statements outside any transaction, each on its own (autocommit), straight on the driver
   * (node-postgres's pool as named prepared statements, or PGlite, whose own lock makes it wait
   * for an open transaction), without the Prisma client: for the hottest reads only, where
   * Prisma's query engine costs more CPU than the statement (a one-row select: ≈ 160 µs of
   * client CPU through Prisma's `$queryRaw` against ≈ 60 µs through the pool, 20 callers at once
   * on a local PostgreSQL). Rows as {@link SqlExecutor} describes.
   */
  readonly sql: SqlExecutor;
  /**
   * The after-commit listeners of this database (src/db/afterCommit.ts): what a transaction of
   * {@link Database.write} or {@link Database.writeSql} said with `afterCommit` reaches them once it
   * has committed, before `write` returns; what a statement of {@link Database.sql} or the Prisma
   * client outside a transaction said, at once.
   */
  readonly commits: CommitSignals;
  /** Resolves when `SELECT 1` answers; rejects otherwise. */
  ping(): Promise<void>;
  /** Closes every connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Options of every write transaction, safe on both engines. PGlite has one connection, so a
 * transaction waits for every earlier one to end: under a burst of writes it may wait far longer
 * than Prisma's default `maxWait` of 2 s to start, so both bounds are 30 s. The isolation level
 * is PostgreSQL's default, READ COMMITTED; rules that need more take row locks
 * (`SELECT … FOR UPDATE`) or write in one statement.
 */
export const WRITE_TRANSACTION = { maxWait: 30_000, timeout: 30_000 } as const;

/**
 * Runs a request's writes: `atomic` work (one statement, atomic by itself) on the Prisma client
 * outside any transaction, retried on contention as transactions are (src/db/contention.ts);
 * other work in {@link Database.write}.
 */
export function runWrite<T>(db: Pick<Database, 'prisma' | 'write'>, work: (tx: PrismaExecutor) => Promise<T>, options?: { atomic?: boolean }): Promise<T> {
  return options?.atomic ? retryingContention(() => work(db.prisma)) : db.write(work);
}

/**
 * {@link runWrite} for work of SQL statements only: `atomic` work on the driver's autocommit
 * ({@link Database.sql}), other work in {@link Database.writeSql}.
 */
export function runSqlWrite<T>(db: Pick<Database, 'sql' | 'writeSql'>, work: (tx: SqlExecutor) => Promise<T>, options?: { atomic?: boolean }): Promise<T> {
  return options?.atomic ? retryingContention(() => work(db.sql)) : db.writeSql(work);
}

/** Where to find the database. */
export interface DatabaseOptions {
  /** A `postgresql://` connection string; when set, PGlite is not used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory (created if missing); `null` keeps the database in memory. */
  pgliteDir?: string | null;
  /**
   * A PGlite database to start from, as `dumpDataDir()` made it (a tarball), instead of an empty
   * one (PGlite's `loadDataDir`, https://pglite.dev/docs/api#loaddatadir). Tests use it to copy a
   * migrated database instead of migrating each one.
   */
  pgliteLoadDataDir?: Blob;
  /** Largest PostgreSQL pool size (default 10). */
  poolSize?: number;
}

/** The PGlite data directory inside the service data directory. */
export function pgliteDirOf(dataDir: string): string {
  return join(dataDir, 'pglite');
}

/**
 * Opens the database chosen by `options` (the one factory that picks the driver adapter).
 * @throws Error when PostgreSQL cannot be reached or the PGlite directory cannot be opened.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.poolSize ?? 10) : openPglite(options.pgliteDir ?? null, options.pgliteLoadDataDir);
}

async function openPostgres(connectionString: string, max: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max });
  // A broken idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const notifications = postgresNotifications(connectionString);
  const commits = new CommitSignals();
  const sql = driverExecutor((text, params) => pool.query(prepared(text, params)));
  commits.autocommit(sql);
  commits.autocommit(prisma);
  let closed = false;
  return {
    kind: 'postgresql',
    prisma,
    driver: { kind: 'postgresql', connectionString, pool },
    write: (work) => retryingContention(() => prismaTransaction(prisma, commits, work)),
    writeSql: (work) => retryingContention(() => postgresTransaction(pool, commits, work)),
    commits,
    async openSession() {
      const client = new pg.Client({ connectionString });
      client.on('error', () => {});
      await client.connect();
      return {
        query: async <Row>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as Row[],
        exec: async (sql: string) => void (await client.query(sql)),
        close: () => client.end(),
      };
    },
    listen: notifications.listen,
    sql,
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await notifications.close();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

async function openPglite(dir: string | null, loadDataDir: Blob | undefined): Promise<Database> {
  if (dir) await mkdir(dir, { recursive: true });
  const pglite = new PGlite({ ...(dir ? { dataDir: dir } : {}), ...(loadDataDir ? { loadDataDir } : {}) });
  await pglite.waitReady;
  // With tracing on, a span per statement (PostgreSQL's come from the SDK's pg instrumentation).
  if (tracingEnabled()) traceEmbeddedStatements(pglite);
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  let sessionQueue: Promise<void> = Promise.resolve();
  const commits = new CommitSignals();
  const sql = driverExecutor((text, params) => pglite.query(text, params));
  commits.autocommit(sql);
  commits.autocommit(prisma);
  let closed = false;
  return {
    kind: 'pglite',
    prisma,
    driver: { kind: 'pglite', pglite },
    write: (work) => retryingContention(() => prismaTransaction(prisma, commits, work)),
    writeSql: (work) =>
      retryingContention(async () => {
        let opened: SqlExecutor | undefined;
        const result = await pglite.transaction((tx) => {
          opened = driverExecutor((text, params) => tx.query(text, params));
          commits.begin(opened);
          return work(opened);
        });
        await commits.committed(opened!);
        return result;
      }),
    commits,
    async openSession() {
      let release!: () => void;
      const previous = sessionQueue;
      sessionQueue = new Promise<void>((resolve) => (release = resolve));
      await previous;
      return {
        query: async <Row>(sql: string, params?: unknown[]) => (await pglite.query(sql, params)).rows as Row[],
        exec: async (sql: string) => void (await pglite.exec(sql)),
        close: async () => release(),
      };
    },
    listen: pgliteListen(pglite),
    sql,
    async ping() {
      await pglite.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}

/** `work` in Prisma's interactive transaction ({@link WRITE_TRANSACTION}), its after-commit signals sent once it committed. */
async function prismaTransaction<T>(prisma: PrismaClient, commits: CommitSignals, work: (tx: PrismaExecutor) => Promise<T>): Promise<T> {
  let opened: PrismaExecutor | undefined;
  const result = await prisma.$transaction((tx) => {
    opened = tx;
    commits.begin(tx);
    return work(tx);
  }, WRITE_TRANSACTION);
  await commits.committed(opened!);
  return result;
}

/**
 * `work` in a driver transaction on one pooled node-postgres client: BEGIN, the statements,
 * COMMIT (ROLLBACK when it throws), then its after-commit signals.
 */
async function postgresTransaction<T>(pool: pg.Pool, commits: CommitSignals, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  let result: T;
  const tx = driverExecutor((sql, params) => client.query(prepared(sql, params)));
  try {
    commits.begin(tx);
    await client.query('BEGIN');
    result = await work(tx);
    await client.query('COMMIT');
  } catch (error) {
    // A client whose ROLLBACK fails is in an unknown state: the pool discards it.
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    client.release(broken);
  }
  await commits.committed(tx);
  return result;
}

/** How many statement texts get a prepared statement on each connection; later texts run unnamed. */
const PREPARED_STATEMENTS_MAX = 200;
const preparedNames = new Map<string, string>();

/**
 * A node-postgres query of `sql` as a named prepared statement
 * (https://node-postgres.com/features/queries#prepared-statements): each pooled connection parses
 * and plans a text once, and PostgreSQL switches to a generic plan after five executions
 * (https://www.postgresql.org/docs/current/sql-prepare.html), so a repeated statement skips the
 * parse and plan it would pay as an unnamed one — measured on this service's pass lookup: ≈ 250 µs
 * of PostgreSQL CPU unnamed, ≈ 50 µs prepared (planning the join and its ORDER BY is most of it).
 * Only the driver paths (`sql`, `writeSql`) use it, whose statements come from fixed templates;
 * past {@link PREPARED_STATEMENTS_MAX} distinct texts statements run unnamed, so a connection
 * never holds more. A pooler in transaction mode must support prepared statements (PgBouncer
 * ≥ 1.21 with `max_prepared_statements`).
 */
function prepared(sql: string, values: unknown[]): pg.QueryConfig {
  let name = preparedNames.get(sql);
  if (name === undefined && preparedNames.size < PREPARED_STATEMENTS_MAX) {
    name = `wps_${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`;
    preparedNames.set(sql, name);
  }
  return name === undefined ? { text: sql, values } : { name, text: sql, values };
}

/** One statement on a driver: its rows and affected row count. */
type DriverQuery = (sql: string, params: unknown[]) => Promise<{ rows: unknown[]; rowCount?: number | null; affectedRows?: number }>;

/** Prisma's raw-statement methods ({@link SqlExecutor}) over a driver connection or transaction. */
function driverExecutor(query: DriverQuery): SqlExecutor {
  const statementOf = (strings: TemplateStringsArray | Prisma.Sql, values: unknown[]) =>
    strings instanceof Prisma.Sql ? strings : new Prisma.Sql(strings, values);
  return {
    async $queryRaw<T>(strings: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      const statement = statementOf(strings, values);
      return (await query(statement.text, statement.values)).rows as T;
    },
    async $executeRaw(strings: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      const statement = statementOf(strings, values);
      const result = await query(statement.text, statement.values);
      return result.rowCount ?? result.affectedRows ?? 0;
    },
    async $queryRawUnsafe<T>(sql: string, ...values: unknown[]) {
      return (await query(sql, values)).rows as T;
    },
  };
}
