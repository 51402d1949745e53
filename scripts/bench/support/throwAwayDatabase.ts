/**
 * A throw-away PostgreSQL database for a benchmark: created on the benchmark server, dropped at
 * the end (no other database is touched).
 *
 * @module scripts/bench/support/throwAwayDatabase
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A created database: its connection string and how to drop it. */
export interface ThrowAwayDatabase {
  url: string;
  /** Drops it, closing its connections (`WITH (FORCE)`). */
  drop(): Promise<void>;
}

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates `wps_bench_<random>` on the server of `serverUrl` (a connection string to any database
 * there, e.g. `postgresql://postgres@127.0.0.1:5432/postgres`).
 */
export async function createThrowAwayDatabase(serverUrl: string): Promise<ThrowAwayDatabase> {
  const name = `wps_bench_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
