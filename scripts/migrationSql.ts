/**
 * Prints the PostgreSQL DDL that turns one Prisma schema into another, offline.
 *
 * Prisma 7's CLI needs a native schema engine it cannot download here, so this runs the
 * Prisma 6.19.3 CLI (devDependency alias `prisma6`) with its WASM schema engine
 * (`engine: "js"`), which needs a datasource `url`, no Rust generator, and a driver adapter: an
 * in-memory PGlite (alias `prisma6-adapter-pglite`), so no server is needed. Both schemas are
 * rewritten into that form in a temporary directory.
 *
 * Usage (see prisma/README.md):
 *   npm run db:diff                       # empty database → prisma/schema.prisma
 *   npm run db:diff -- --from old.prisma  # an older schema → prisma/schema.prisma
 *
 * @module scripts/migrationSql
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const prisma6 = join(root, 'node_modules/prisma6/build/index.js');

/** Rewrites a Prisma 7 schema into the Prisma 6 form: no generator, a placeholder datasource url. */
function toPrisma6Schema(schema: string): string {
  return schema
    .replace(/^generator\s+\w+\s*\{[^}]*\}/gm, '')
    .replace(/(datasource\s+\w+\s*\{[^}]*?provider\s*=\s*"postgresql")/m, '$1\n  url = "postgresql://localhost/unused"');
}

/**
 * Computes the SQL script from `fromSchema` (or the empty database when null) to `toSchema`.
 * @param fromSchema Prisma schema text, or null for an empty database.
 * @param toSchema Prisma schema text.
 * @returns The SQL script Prisma would run, as text (`-- This is an empty migration.` when equal).
 * @throws Error with Prisma's output when the CLI fails.
 */
export async function migrationSql(fromSchema: string | null, toSchema: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wps-prisma-diff-'));
  try {
    await writeFile(join(dir, 'to.prisma'), toPrisma6Schema(toSchema));
    if (fromSchema !== null) await writeFile(join(dir, 'from.prisma'), toPrisma6Schema(fromSchema));
    await writeFile(
      join(dir, 'prisma.config.mjs'),
      `import { PGlite } from ${JSON.stringify(join(root, 'node_modules/@electric-sql/pglite/dist/index.js'))};\n` +
        `import { PrismaPGlite } from ${JSON.stringify(join(root, 'node_modules/prisma6-adapter-pglite/dist/index.mjs'))};\n` +
        `export default { engine: 'js', experimental: { adapter: true }, schema: 'to.prisma',\n` +
        `  adapter: async () => new PrismaPGlite(new PGlite()) };\n`,
    );
    const from = fromSchema === null ? ['--from-empty'] : ['--from-schema-datamodel', 'from.prisma'];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [prisma6, 'migrate', 'diff', ...from, '--to-schema-datamodel', 'to.prisma', '--script', '--config', 'prisma.config.mjs'],
      {
        cwd: dir,
        env: {
          ...process.env,
          PRISMA_HIDE_UPDATE_MESSAGE: '1',
          CHECKPOINT_DISABLE: '1',
          // Never used by the WASM engine, but the CLI insists on a path it can stat.
          PRISMA_QUERY_ENGINE_LIBRARY: process.execPath,
          PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
        },
      },
    );
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' } } });
  const from = values.from ? await readFile(values.from, 'utf8') : null;
  const to = await readFile(values.to ?? join(root, 'prisma/schema.prisma'), 'utf8');
  process.stdout.write(await migrationSql(from, to));
}
