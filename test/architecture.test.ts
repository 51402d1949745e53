/**
 * The shape of the code, checked: the floors of src/ import only downwards and no import cycle
 * exists (dependency-cruiser with the rules of .dependency-cruiser.cjs), handlers live in the
 * folder of their contract tag, one module opens write transactions, one module announces pass
 * changes and one relays them, and comments and contract descriptions cite sources a reader can
 * open. Reads the source files; runs once (it does not depend on the database).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { documentOperations, type OpenApiDocument } from '../src/http/routes.ts';
import { testDatabaseKind } from './support/testDatabase.ts';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const src = join(root, 'src');
const runOnce = testDatabaseKind() === 'pglite' ? describe : describe.skip;

/** Every `.ts` file under `dir`, recursively (absolute paths). */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/**
 * What only stores and src/db/ may hold: raw statements (`$queryRaw`, `$executeRaw`, their
 * `Unsafe` forms), SQL fragments (`Prisma.sql`, `Prisma.raw`, `Prisma.join`), a string that starts
 * with an SQL statement, and the driver's autocommit executor (`db.sql`) handed on.
 */
const SQL_TEXT =
  /\$(queryRaw|executeRaw)(Unsafe)?\b|\bPrisma\.(sql|raw|join)\b|\bsql`|\bdb\.sql\b(?!`)|[`'"]\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|WITH \w+ AS|SAVEPOINT|ROLLBACK)\b/;

/** `file:line: text` of every line of a source file under `dir` outside the stores and src/db/ that holds {@link SQL_TEXT}. */
function sqlOutsideStores(dir: string): string[] {
  return sourceFiles(dir)
    .map((file) => relative(root, file))
    .filter((file) => !/^src\/db\/|^src\/domain\/[^/]+\/\w+Store\.ts$/.test(file))
    .flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (SQL_TEXT.test(line) && !/^\s*(\*|\/\/)/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
}

/** `Pass templates` → `passTemplates`. */
const camelCase = (tag: string) => tag.toLowerCase().replace(/\s+(\w)/g, (_, c: string) => c.toUpperCase());

runOnce('architecture', () => {
  it('imports only downwards between the floors of src/, with no import cycle (dependency-cruiser)', async () => {
    const { stdout } = await promisify(execFile)(
      join(root, 'node_modules/.bin/depcruise'),
      ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
      {
        cwd: root,
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const { summary } = JSON.parse(stdout) as {
      summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[]; totalCruised: number };
    };
    const violations = summary.violations.map(
      (v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`,
    );
    expect(violations).toEqual([]);
    expect(summary.totalCruised).toBeGreaterThan(200);
  });

  it('writes pass-change outbox rows in one module and relays them in one: only it queues `pass-changed` jobs', () => {
    const mentions = (pattern: RegExp) =>
      sourceFiles(src)
        .filter((file) => pattern.test(readFileSync(file, 'utf8')))
        .map((file) => relative(root, file))
        .sort();
    expect(mentions(/INSERT INTO pass_change_outbox/)).toEqual(['src/domain/passes/passChangeOutboxStore.ts']);
    expect(mentions(/DELETE FROM pass_change_outbox/)).toEqual(['src/domain/passes/passChangeOutboxStore.ts']);
    // The store's writing functions have one caller: the entry point every change goes through.
    expect(mentions(/\binsertPassChanges\b|\bpassChangeSql\b/)).toEqual(['src/domain/passes/passChangeOutboxStore.ts', 'src/domain/passes/passChanges.ts']);
    expect(mentions(/\bsendPassChangedJobs\b|\bpassChangedJob\b|'pass-changed'/)).toEqual([
      'src/delivery/passChangeRelay.ts',
      'src/delivery/passChangedJob.ts',
      'src/queues.ts',
    ]);
    // Pass events (their subject is the pass) are recorded by the relay alone.
    expect(mentions(/relationship: 'pass', type: 'pass'/)).toEqual(['src/delivery/passChangeRelay.ts']);
  });

  it('keeps SQL text and the driver in the stores (src/domain/<aggregate>/*Store.ts) and src/db/ only', () => {
    expect(sqlOutsideStores(src)).toEqual([]);
    // The check finds what it looks for: a raw statement, a fragment, SQL in a string, the driver passed on.
    const samples = ['await tx.$executeRawUnsafe(x)', 'Prisma.sql`x`', "const q = 'SELECT 1';", 'await requirePass(ctx.db.sql, a, b)'];
    expect(samples.filter((sample) => SQL_TEXT.test(sample))).toEqual(samples);
    // Columns are named once, by src/db/rows.ts, never by a quoted camelCase alias in a statement.
    const aliases = sourceFiles(src).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bAS\s+"[a-z]+[A-Z]\w*"/.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(aliases).toEqual([]);
  });

  it('serves every operation from src/api/<tag>/<operationId>.ts, its contract tag in camel case', () => {
    const document = JSON.parse(readFileSync(join(root, 'generated/openapi.json'), 'utf8')) as OpenApiDocument;
    const registry = readFileSync(join(src, 'operations.ts'), 'utf8');
    const misplaced = documentOperations(document).flatMap(({ operationId, method, path }) => {
      const operation = document.paths[path]![method] as { tags?: string[] };
      const expected = `api/${camelCase(operation.tags?.[0] ?? '')}/${operationId}.ts`;
      const file = join(src, expected);
      const exported = existsSync(file) && new RegExp(`export const ${operationId}\\b`).test(readFileSync(file, 'utf8'));
      const registered = registry.includes(`from './${expected}'`);
      return exported && registered ? [] : [`${operationId} belongs in src/${expected}${exported ? ', registered from there in src/operations.ts' : ''}`];
    });
    expect(misplaced).toEqual([]);
  });

  it('opens write transactions in one place only (db.write in src/db/database.ts)', () => {
    const opening = sourceFiles(src)
      .filter((file) => relative(root, file) !== 'src/db/database.ts')
      .filter((file) => /\$transaction\s*\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(opening).toEqual([]);
  });

  it('cites public sources in comments and contract descriptions, never sections of a private spec or issue numbers', () => {
    const files = [...sourceFiles(src), join(root, 'generated/openapi.json')];
    const citations = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => {
          // A section sign is fine after the name of a public document (RFC 6750 §3, X.690 §8.1).
          const privateSection = /§/.test(line.replace(/(RFC|draft-[\w-]+|BCP|X\.\d+)\s*\d*\s*§\s*[\d.]+/g, ''));
          const issueNumber = /\b[Ii]ssues? #?\d+\b/.test(line);
          return privateSection || issueNumber ? [`${relative(root, file)}:${i + 1}: ${line.trim().slice(0, 120)}`] : [];
        }),
    );
    expect(citations).toEqual([]);
  });
});
