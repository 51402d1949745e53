/**
 * The directory of the service's package.json: where the files the service reads at run time
 * live (`generated/openapi.json`, `generated/openapi.yaml`, `generated/docs.html`,
 * `prisma/migrations/`). The same whether the service runs from its TypeScript sources
 * (`src/…`, through tsx: `npm run dev`, the tests) or compiled (`dist/src/…`: `npm start`), so
 * that no module counts `../` levels from its own location. tsc emits only JavaScript, never
 * these files (https://www.typescriptlang.org/tsconfig/#outDir), and `dist/` holds no
 * package.json.
 *
 * @module packageRoot
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest directory at or above `from` that holds a package.json.
 * @param from An absolute file or directory path.
 * @throws Error when no directory up to the file system's root holds one.
 */
export function findPackageRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}

/** The service's package directory (absolute). */
export const packageRoot = findPackageRoot(fileURLToPath(import.meta.url));
