/**
 * The one way raw statements' rows become objects: a statement selects columns under their SQL
 * names (snake_case: `account_id`, `updated_at`, or a computed column's snake_case alias), and
 * {@link queryRows} / {@link camelRow} turn each row into an object of the given type with
 * camelCase keys (`accountId`, `updatedAt`) — the names Prisma's models and the rest of the code
 * use — so no statement repeats the schema's mapping column by column (`AS "accountId"`).
 *
 * Values are left as the executor parsed them (src/db/database.ts, {@link SqlExecutor}); only
 * keys change. A key without `_` stays as it is. Every row of one statement has the same columns
 * in the same order, so its objects are built in one key order and share one V8 hidden class.
 *
 * @module db/rows
 */
import type { Prisma } from '../../generated/prisma/client.ts';
import type { SqlExecutor } from './database.ts';

/** `account_id` → `accountId`, as a type. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** `accountId` → `account_id`, as a type. */
export type SnakeCase<S extends string> = S extends `${infer First}${infer Rest}`
  ? `${First extends Lowercase<First> ? First : `_${Lowercase<First>}`}${SnakeCase<Rest>}`
  : S;

/** The row a statement sends for an object of type `T`: `T`'s values under snake_case column names. */
export type SqlRow<T> = { [K in keyof T & string as SnakeCase<K>]: T[K] };

/** camelCase names of the column names seen so far (a bounded set: the columns the code selects). */
const camelNames = new Map<string, string>();

/** `account_id` → `accountId` (`id` stays `id`). */
export function camelName(column: string): string {
  if (!column.includes('_')) return column;
  let name = camelNames.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    camelNames.set(column, name);
  }
  return name;
}

/**
 * One row with camelCase keys.
 * @param row A row as the executor returned it (snake_case column names).
 * @returns A new object of type `T` (the caller states what the statement selects).
 */
export function camelRow<T>(row: SqlRow<T> | Record<string, unknown>): T {
  const object: Record<string, unknown> = {};
  for (const column in row) object[camelName(column)] = (row as Record<string, unknown>)[column];
  return object as T;
}

/**
 * Runs a statement and returns its rows as objects of type `T` ({@link camelRow}).
 * @param executor The driver, a Prisma client or a transaction.
 * @param query The statement (`Prisma.sql\`…\``), selecting snake_case column names.
 * @throws Whatever the executor throws (the database's errors).
 */
export async function queryRows<T>(executor: Pick<SqlExecutor, '$queryRaw'>, query: Prisma.Sql): Promise<T[]> {
  const rows = await executor.$queryRaw<Record<string, unknown>[]>(query);
  const objects = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i++) objects[i] = camelRow<T>(rows[i]!);
  return objects;
}

/** {@link queryRows}, the first row (undefined when there is none). */
export async function queryRow<T>(executor: Pick<SqlExecutor, '$queryRaw'>, query: Prisma.Sql): Promise<T | undefined> {
  const [row] = await queryRows<T>(executor, query);
  return row;
}
