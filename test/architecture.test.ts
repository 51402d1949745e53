/**
 * The shape of the code, checked: floors run one way (the lower floors import nothing from the
 * HTTP edge or the resources), handlers live in the folder of their contract tag, one module
 * opens write transactions, and comments and contract descriptions cite sources a reader can
 * open. Reads the source files; runs once (it does not depend on the database).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

/** The relative module specifiers a file imports (static, dynamic and re-exports). */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((s) => relative(root, resolve(dirname(file), s)));
}

/** `Pass templates` → `passTemplates`. */
const camelCase = (tag: string) => tag.toLowerCase().replace(/\s+(\w)/g, (_, c: string) => c.toUpperCase());

runOnce('architecture', () => {
  it('keeps the lower floors (db, jobs, net, security, wallet, delivery and the ground-floor modules) free of imports from http/ and resources/', () => {
    const lower = ['db', 'jobs', 'net', 'security', 'wallet', 'delivery'].flatMap((dir) => sourceFiles(join(src, dir)));
    const ground = ['errors.ts', 'clock.ts'].map((file) => join(src, file));
    const climbing = [...lower, ...ground].flatMap((file) =>
      relativeImports(file)
        .filter((target) => target.startsWith('src/http/') || target.startsWith('src/resources/'))
        .map((target) => `${relative(root, file)} imports ${target}`),
    );
    expect(climbing).toEqual([]);
    expect(lower.length).toBeGreaterThan(10);
  });

  it('serves every operation from src/resources/<tag>/<operationId>.ts, its contract tag in camel case', () => {
    const document = JSON.parse(readFileSync(join(root, 'generated/openapi.json'), 'utf8')) as OpenApiDocument;
    const registry = readFileSync(join(src, 'operations.ts'), 'utf8');
    const misplaced = documentOperations(document).flatMap(({ operationId, method, path }) => {
      const operation = document.paths[path]![method] as { tags?: string[] };
      const expected = `resources/${camelCase(operation.tags?.[0] ?? '')}/${operationId}.ts`;
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
