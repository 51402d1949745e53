/**
 * The SQL of a rotation of `SECRETS_KEY` (src/domain/secretRotation/secretRotation.ts): every
 * column holding a sealed secret (src/security/secrets.ts), and the statements that find the
 * values not yet sealed with the current key and replace them. The table and column names come
 * from {@link SEALED_COLUMNS} only, never from input.
 *
 * @module domain/secretRotation/sealedColumnStore
 */
import { Prisma } from '../../../generated/prisma/client.ts';
import type { Database, SqlExecutor } from '../../db/database.ts';
import {
  appleAuthenticationTokenContext,
  applePrivateKeyContext,
  googleServiceAccountKeyContext,
  readerConfigurationSecretContext,
  singleSignOnClientSecretContext,
  totpSecretContext,
  webhookSecretContext,
} from '../../security/secretContexts.ts';

/** A column of sealed secrets: where it is, and the GCM context of the value in a row. */
export interface SealedColumn {
  /** What it holds, for progress lines. */
  readonly name: string;
  readonly table: string;
  /** The uuid primary key of the table. */
  readonly key: string;
  readonly column: string;
  /** The context a row's value is sealed with (src/security/secretContexts.ts), from its key. */
  context(key: string): string;
}

/** Every sealed column of the schema (prisma/schema.prisma: the `Bytes` columns named `…encrypted`, and the pass's Apple authentication token). */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    name: 'reader configuration NFC private keys',
    table: 'reader_configurations',
    key: 'entity_id',
    column: 'nfc_private_key_encrypted',
    context: (key) => readerConfigurationSecretContext(key, 'nfcPrivateKey'),
  },
  {
    name: 'reader configuration API keys',
    table: 'reader_configurations',
    key: 'entity_id',
    column: 'api_key_encrypted',
    context: (key) => readerConfigurationSecretContext(key, 'readerConfigurationApiKey'),
  },
  { name: 'Apple private keys', table: 'apple_configurations', key: 'id', column: 'private_key_encrypted', context: applePrivateKeyContext },
  {
    name: 'Google service account keys',
    table: 'google_configurations',
    key: 'id',
    column: 'service_account_key_encrypted',
    context: googleServiceAccountKeyContext,
  },
  { name: 'webhook signing secrets', table: 'webhook_subscriptions', key: 'id', column: 'secret_encrypted', context: webhookSecretContext },
  { name: 'Apple authentication tokens of passes', table: 'passes', key: 'id', column: 'apple_authentication_token', context: appleAuthenticationTokenContext },
  { name: 'TOTP secrets of people', table: 'people', key: 'id', column: 'totp_secret', context: totpSecretContext },
  {
    name: 'single sign-on client secrets',
    table: 'single_sign_on_providers',
    key: 'account_id',
    column: 'client_secret',
    context: singleSignOnClientSecretContext,
  },
];

/** One sealed value and the key of its row. */
export interface SealedValue {
  key: string;
  sealed: Uint8Array;
}

/** The smallest uuid: where a walk through a table starts. */
export const FIRST_KEY = '00000000-0000-0000-0000-000000000000';

const ident = (name: string) => Prisma.raw(`"${name}"`);

/**
 * The next `limit` values of `column` not starting with `prefix` (not sealed with the current key),
 * with a key after `afterKey`, in key order.
 */
export function pendingSealedValues(sql: SqlExecutor, column: SealedColumn, prefix: Uint8Array, afterKey: string, limit: number): Promise<SealedValue[]> {
  const [table, key, value] = [ident(column.table), ident(column.key), ident(column.column)];
  return sql.$queryRaw<SealedValue[]>(Prisma.sql`
    SELECT ${key}::text AS key, ${value} AS sealed FROM ${table}
    WHERE ${value} IS NOT NULL AND substring(${value} FROM 1 FOR ${prefix.length}) <> ${Buffer.from(prefix)}::bytea AND ${key} > ${afterKey}::uuid
    ORDER BY ${key} LIMIT ${limit}`);
}

/** How many values of `column` are not sealed with the key whose values start with `prefix`. */
export async function countPendingSealedValues(db: Database, column: SealedColumn, prefix: Uint8Array): Promise<number> {
  const [table, value] = [ident(column.table), ident(column.column)];
  const rows = await db.sql.$queryRaw<{ count: number }[]>(Prisma.sql`
    SELECT count(*)::int AS count FROM ${table}
    WHERE ${value} IS NOT NULL AND substring(${value} FROM 1 FOR ${prefix.length}) <> ${Buffer.from(prefix)}::bytea`);
  return rows[0]!.count;
}

/**
 * Replaces a sealed value, only if the row still holds `previous` (a server may have written a new
 * value meanwhile, which is then sealed with the current key already).
 * @returns true when the row was updated.
 */
export async function replaceSealedValue(sql: SqlExecutor, column: SealedColumn, key: string, previous: Uint8Array, next: Uint8Array): Promise<boolean> {
  const [table, keyColumn, value] = [ident(column.table), ident(column.key), ident(column.column)];
  const count = await sql.$executeRaw(Prisma.sql`
    UPDATE ${table} SET ${value} = ${Buffer.from(next)}::bytea WHERE ${keyColumn} = ${key}::uuid AND ${value} = ${Buffer.from(previous)}::bytea`);
  return count === 1;
}
