/**
 * The one way raw statements' rows become objects: a statement selects columns under their SQL
 * names (snake_case: `account_id`, `updated_at`, or a computed column's snake_case alias), and
 * {@link queryRows} / {@link camelRow} turn each row into an object of the given type with
 * camelCase keys (`accountId`, `updatedAt`) — the names Prisma's models and the rest of the code
 * use — so no statement repeats the schema's mapping column by column (a quoted camelCase alias per column).
 *
 * Values are left as the executor parsed them (src/db/database.ts, {@link SqlExecutor}); only
 * keys change. A key without `_` stays as it is. Each column list is mapped by a function made
 * once for it, so the objects of one statement share one V8 hidden class.
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

/** `account_id` → `accountId` (`id` stays `id`). */
export function camelName(column: string): string {
  return column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A function that copies a row of given columns into a new object under their camelCase names. */
type RowMapper = (row: Record<string, unknown>) => Record<string, unknown>;

/** A column list seen so far: one node of a trie by column name, with the list's mapper once made. */
interface ColumnsNode {
  readonly columns: readonly string[];
  readonly next: Map<string, ColumnsNode>;
  mapper?: RowMapper;
}

/** The column lists seen so far (a bounded set: the statements the code runs), as a trie. */
const seen: ColumnsNode = { columns: [], next: new Map() };

/**
 * The mapper of a row's column list, made once per list: a function whose one object literal
 * lists every column (`{ "accountId": row["account_id"], … }`), so that each object is built with
 * one shape and no per-key work. The list is found by walking the trie with the row's keys, not by
 * joining them into a string to look up: on a pass row (24 columns; `tsx`, a loaded 2-core
 * machine) joining and hashing took ≈ 8 µs a row, the walk ≈ 1 µs, the mapper itself ≈ 1.5 µs,
 * where copying key by key in a loop took ≈ 16 µs. Column names are quoted with
 * `JSON.stringify`, so any name is a safe property key.
 */
function mapperOf(row: Record<string, unknown>): RowMapper {
  let node = seen;
  for (const column in row) {
    let next = node.next.get(column);
    if (!next) {
      next = { columns: [...node.columns, column], next: new Map() };
      node.next.set(column, next);
    }
    node = next;
  }
  if (!node.mapper) {
    const members = node.columns.map((column) => `${JSON.stringify(camelName(column))}: row[${JSON.stringify(column)}]`);
    node.mapper = new Function('row', `return { ${members.join(', ')} };`) as RowMapper;
  }
  return node.mapper;
}

/**
 * One row with camelCase keys.
 * @param row A row as the executor returned it (snake_case column names).
 * @returns A new object of type `T` (the caller states what the statement selects).
 */
export function camelRow<T>(row: SqlRow<T> | Record<string, unknown>): T {
  return mapperOf(row as Record<string, unknown>)(row as Record<string, unknown>) as T;
}

/**
 * Runs a statement and returns its rows as objects of type `T` ({@link camelRow}; every row of a
 * statement has the same columns, so the first row's choose the mapper of all).
 * @param executor The driver, a Prisma client or a transaction.
 * @param query The statement (`Prisma.sql\`…\``), selecting snake_case column names.
 * @throws Whatever the executor throws (the database's errors).
 */
export async function queryRows<T>(executor: Pick<SqlExecutor, '$queryRaw'>, query: Prisma.Sql): Promise<T[]> {
  const rows = await executor.$queryRaw<Record<string, unknown>[]>(query);
  if (!rows.length) return [];
  const mapper = mapperOf(rows[0]!);
  const objects = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i++) objects[i] = mapper(rows[i]!) as T;
  return objects;
}

/** {@link queryRows}, the first row (undefined when there is none). */
export async function queryRow<T>(executor: Pick<SqlExecutor, '$queryRaw'>, query: Prisma.Sql): Promise<T | undefined> {
  const [row] = await queryRows<T>(executor, query);
  return row;
}
