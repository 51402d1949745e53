/**
 * Breaking-change guard: compares the working tree's bundled contract (`generated/openapi.json`)
 * with the one committed at a git ref, using Optic's `breaking-changes` ruleset, offline.
 *
 * Usage (see openapi/README.md, "Breaking changes"):
 *   npm run generate && npm run contract:diff -- HEAD~1
 *   npm run contract:diff -- origin/main
 *
 * Optic does not treat names as part of the contract, but generated clients do: an operationId
 * becomes a method name and a component schema a type name. So the guard adds its own check of the
 * two bundles: every path + method of the ref keeps its operationId, and every name under
 * `components.schemas` of the ref is still there. A renamed or removed one is a break like
 * Optic's, printed after Optic's report and accepted the same way (the trailer).
 *
 * Exit status: 0 when nothing breaks (or the ref has no bundle, or every break is accepted by a
 * `Contract-Break: <reason>` trailer on a commit in `<ref>..HEAD`), 1 on breaking changes,
 * 2 on a usage error or when Optic itself fails.
 *
 * @module scripts/contractDiff
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(fileURLToPath(import.meta.url), '../..');
const bundlePath = 'generated/openapi.json';
const optic = join(root, 'node_modules/@useoptic/optic/build/index.js');
const trailerKey = 'Contract-Break';

/**
 * The standard Optic checks against: breaking changes only (no naming or style rules, which
 * Redocly lint owns). Optic skips the checks when `info.version` changes major version by
 * default; we turn that off so the trailer is the one way to accept a break.
 */
const standard = `ruleset:\n  - breaking-changes:\n      skip_when_major_version_changes: false\n`;

/** Runs git in the repository root; the ref is always a separate argument, never shell text. */
async function git(args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** Resolves `ref` to a commit id, or null when it names no commit. */
async function resolveCommit(ref: string): Promise<string | null> {
  try {
    return (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim();
  } catch {
    return null;
  }
}

/** The bundle committed at `commit`, or null when the commit has no `generated/openapi.json`. */
async function bundleAt(commit: string): Promise<string | null> {
  try {
    await git(['cat-file', '-e', `${commit}:${bundlePath}`]);
  } catch {
    return null;
  }
  return git(['show', `${commit}:${bundlePath}`]);
}

/** `Contract-Break` trailers of the commits in `base..HEAD`: `[short id, reason]` pairs. */
async function contractBreakTrailers(base: string): Promise<Array<[string, string]>> {
  const log = await git(['log', `--format=%h%x00%(trailers:key=${trailerKey},valueonly)%x1e`, `${base}..HEAD`]);
  return log
    .split('\x1e')
    .map((record) => record.trim().split('\x00'))
    .flatMap(([commit, values]) =>
      (values ?? '')
        .split('\n')
        .map((reason) => reason.trim())
        .filter((reason) => reason !== '')
        .map((reason): [string, string] => [commit ?? '', reason]),
    );
}

/** Runs `optic diff <base> <head> --check`; Optic exits 1 both on breaking changes and on its own errors. */
async function opticDiff(basePath: string, headPath: string, standardPath: string, cwd: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, OPTIC_TELEMETRY_LEVEL: 'off', NO_UPDATE_NOTIFIER: '1' };
  // With CI set, Optic writes ci-run-details.json into its working directory and changes its output.
  delete env.CI;
  try {
    const { stdout, stderr } = await run(process.execPath, [optic, 'diff', basePath, headPath, '--check', '--standard', standardPath, '--severity', 'error'], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 5 * 60 * 1000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string; message: string };
    const output = (failed.stdout ?? '') + (failed.stderr ?? '');
    return { code: typeof failed.code === 'number' ? failed.code : 2, output: output || failed.message };
  }
}

/** The members of a bundle that the name check reads. */
interface Bundle {
  paths?: Record<string, Record<string, unknown> | undefined>;
  components?: { schemas?: Record<string, unknown> };
}

/** The HTTP methods of an OpenAPI path item (the other members are not operations). */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `METHOD path` → operationId, for every operation of a bundle that has one. */
function operationIds(bundle: Bundle): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [path, item] of Object.entries(bundle.paths ?? {})) {
    for (const method of METHODS) {
      const id = (item?.[method] as { operationId?: unknown } | undefined)?.operationId;
      if (typeof id === 'string') ids.set(`${method.toUpperCase()} ${path}`, id);
    }
  }
  return ids;
}

/**
 * Names that generated clients use and that changed from `base` to `head`, one sentence each:
 * an operation (path + method) of `base` whose operationId is different or gone in `head`, and a
 * component schema of `base` that `head` no longer has (with the schemas `head` added, which may
 * be its new name). Empty when every name stayed.
 */
function renamedOrRemovedNames(base: Bundle, head: Bundle): string[] {
  const breaks: string[] = [];
  const headIds = operationIds(head);
  for (const [operation, id] of operationIds(base)) {
    const now = headIds.get(operation);
    if (now === undefined) breaks.push(`operationId ${id} removed: ${operation} has no operationId or is gone`);
    else if (now !== id) breaks.push(`operationId ${id} renamed to ${now} (${operation})`);
  }
  const baseSchemas = Object.keys(base.components?.schemas ?? {});
  const headSchemas = Object.keys(head.components?.schemas ?? {});
  const added = headSchemas.filter((name) => !baseSchemas.includes(name));
  for (const name of baseSchemas.filter((name) => !headSchemas.includes(name))) {
    const hint = added.length > 0 ? ` (schemas added: ${added.join(', ')})` : '';
    breaks.push(`component schema ${name} renamed or removed${hint}`);
  }
  return breaks;
}

async function main(argv: string[]): Promise<number> {
  const ref = argv[0];
  if (argv.length !== 1 || !ref || ref.startsWith('-')) {
    console.error('usage: npm run contract:diff -- <git-ref>   (e.g. HEAD~1, origin/main, v0.1.0)');
    console.error(`Compares ${bundlePath} in the working tree (run npm run generate first) with the one at <git-ref>`);
    console.error('and exits 1 on breaking changes. See openapi/README.md, "Breaking changes".');
    return 2;
  }
  const commit = await resolveCommit(ref);
  if (!commit) {
    console.error(`contract:diff: '${ref}' does not name a commit in this repository.`);
    return 2;
  }
  const short = commit.slice(0, 12);
  const base = await bundleAt(commit);
  if (base === null) {
    console.log(`contract:diff: ${ref} (${short}) has no ${bundlePath}; nothing to compare.`);
    return 0;
  }
  const headPath = join(root, bundlePath);
  const head = await readFile(headPath, 'utf8').catch(() => null);
  if (head === null) {
    console.error(`contract:diff: ${bundlePath} is missing from the working tree; run npm run generate first.`);
    return 2;
  }
  if (head === base) {
    console.log(`contract:diff: ${bundlePath} is identical at ${ref} (${short}) and in the working tree; no contract changes.`);
    return 0;
  }

  const dir = await mkdtemp(join(tmpdir(), 'wps-contract-diff-'));
  try {
    // Relative to Optic's working directory (the temporary one), so its report names `openapi@<commit>.json`.
    const basePath = `openapi@${short}.json`;
    const standardPath = 'breaking-changes.yml';
    await writeFile(join(dir, basePath), base);
    await writeFile(join(dir, standardPath), standard);
    console.log(`contract:diff: Optic ${bundlePath} at ${ref} (${short}) → working tree (takes about 20 s)`);
    const started = Date.now();
    // Optic runs in the temporary directory: no optic.yml of the repository, no files written into it.
    const { code, output } = await opticDiff(basePath, headPath, standardPath, dir);
    const nameBreaks = renamedOrRemovedNames(JSON.parse(base) as Bundle, JSON.parse(head) as Bundle);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    // Optic names the head file relative to the temporary directory and gives a character offset
    // as its "column"; show `generated/openapi.json:<line>` instead, and drop its --web hint.
    const headShown = relative(dir, headPath);
    const report = output
      .split(headShown)
      .join(bundlePath)
      .replace(/(generated\/openapi\.json:\d+):\d+/g, '$1')
      .replace(/^.*Rerun this command with the --web flag.*\n?/m, '');
    process.stdout.write(report);
    if (code !== 0) {
      // Optic's summary line, e.g. "x  Checks: 2/3 passed": fewer passed than run means a break.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the ANSI colour codes (ESC [ … m) of the tool's output
      const summary = /Checks: (\d+)\/(\d+) passed/.exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
      if (!summary || Number(summary[1]) >= Number(summary[2])) {
        console.error(`contract:diff: Optic failed (exit ${code}) without reporting checks; see its output above.`);
        return 2;
      }
    }
    if (nameBreaks.length > 0) {
      console.log(`\nNames generated clients use (operationIds, component schemas) that changed:`);
      for (const line of nameBreaks) console.log(`  x ${line}`);
    }
    if (code === 0 && nameBreaks.length === 0) {
      console.log(`contract:diff: no breaking changes (${seconds} s).`);
      return 0;
    }
    const trailers = await contractBreakTrailers(commit);
    if (trailers.length > 0) {
      const line = '!'.repeat(78);
      console.warn(`\n${line}\ncontract:diff: BREAKING CHANGES ACCEPTED by ${trailerKey} trailer:`);
      for (const [id, reason] of trailers) console.warn(`  ${id}: ${reason}`);
      console.warn(`Clients written against ${ref} may break; say so in the release notes.\n${line}`);
      return 0;
    }
    console.error(
      `\ncontract:diff: breaking changes against ${ref} (${short}) (${seconds} s).\n` +
        'Make the change compatible (add rather than remove or tighten), or, when the break is intended,\n' +
        `add a trailer to the commit message's last paragraph:  ${trailerKey}: <why clients must change>`,
    );
    return 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
