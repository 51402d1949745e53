/**
 * `npm run contract:prism`: runs the quickstart example (examples/quickstart.ts) through Stoplight
 * Prism in validating proxy mode, in front of a running server, and fails when Prism sees a
 * request or a response that breaks the contract.
 *
 *   BASE_URL=http://127.0.0.1:3000 API_TOKEN=wps_… npm run contract:prism [-- --document <bundle.json>]
 *
 * Prism (`prism proxy <bundle> <BASE_URL> --errors`) listens on a free loopback port; the example
 * runs as a child process with `BASE_URL` pointed at it. With `--errors` Prism answers a request
 * that breaks the contract with its own 422 and replaces a response that breaks it with a 500
 * (`application/problem+json`, the violations under `validation`), so the example fails on the
 * spot; lesser violations only add an `sl-violations` header and a `Violation:` log line. This
 * script reads Prism's log and fails (exit 1) when the example fails, when any request ended in a
 * Prism error or any `Violation:` was logged, or when no request went through Prism at all.
 * Prism is stopped in every case.
 *
 * Pre-processing (of the copy handed to Prism only): the bundle gets `jsonSchemaDialect:
 * https://json-schema.org/draft/2020-12/schema` when it declares none. Prism 5.16 picks its JSON
 * Schema validator from each schema's `$schema` and, for an OpenAPI 3.1 document without a
 * declared dialect, falls back to draft-07 (stoplightio/prism#2797), which silently skips 2020-12
 * keywords the contract uses (`dependentRequired` in `PassBarcode`). With the dialect declared,
 * Prism's schema conversion stamps it on every schema and validates with its 2020-12 validator,
 * which is what OpenAPI 3.1 prescribes. The contract itself is unchanged.
 *
 * `--document` checks against another bundle (JSON), e.g. a deliberately altered copy to see a
 * violation caught. Prism runs at log level `info`: `debug` would log the API key.
 *
 * @module scripts/contractPrism
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, stopChild } from './support/childProcess.ts';

const root = resolve(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const DIALECT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const READY_TIMEOUT_MS = 60_000;

/**
 * Writes the bundle Prism reads: the given one, with the JSON Schema dialect declared (see the
 * module documentation).
 * @returns The path of the copy, in `dir`.
 */
async function prismDocument(source: string, dir: string): Promise<string> {
  const document = JSON.parse(await readFile(source, 'utf8')) as Record<string, unknown>;
  if (String(document.openapi).startsWith('3.1') && document.jsonSchemaDialect === undefined) {
    document.jsonSchemaDialect = DIALECT_2020_12;
  }
  const path = join(dir, 'openapi.prism.json');
  await writeFile(path, JSON.stringify(document));
  return path;
}

/** Prism's log, line by line, without colour codes. */
class PrismLog {
  readonly lines: string[] = [];
  private partial = '';

  /** Appends a chunk of Prism's stdout or stderr. */
  add(chunk: Buffer): void {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the ANSI colour codes (ESC [ … m) of Prism's output
    const text = this.partial + chunk.toString('utf8').replace(/\u001b\[[0-9;]*m/g, '');
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    this.lines.push(...lines.filter((line) => line.trim()));
  }

  /** Waits for "Prism is listening"; rejects when Prism exits first or after the timeout. */
  ready(prism: ChildProcess): Promise<void> {
    return new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`Prism was not listening after ${READY_TIMEOUT_MS} ms.`)), READY_TIMEOUT_MS);
      const check = () => {
        if (this.lines.some((line) => line.includes('Prism is listening'))) {
          clearTimeout(timer);
          prism.stdout?.off('data', check);
          done();
        }
      };
      prism.stdout?.on('data', check);
      prism.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`Prism exited (code ${code}) before listening.`));
      });
    });
  }

  /** The requests Prism received, what the server answered, and every violation or error it logged. */
  summary(): { received: number; upstream: Map<string, number>; problems: string[] } {
    const upstream = new Map<string, number>();
    let received = 0;
    const problems: string[] = [];
    let serving = false;
    for (const line of this.lines) {
      if (line.includes('Prism is listening')) serving = true;
      if (!serving) continue; // the route list printed at start-up
      if (line.includes('Request received')) received++;
      const answer = /The upstream call to \S+ has returned (\d+)/.exec(line);
      if (answer) upstream.set(answer[1]!, (upstream.get(answer[1]!) ?? 0) + 1);
      if (/Violation:|Request terminated with error|\s(warn|warning|error|fatal)\s{2,}/.test(line)) problems.push(line);
    }
    return { received, upstream, problems };
  }
}

/** Runs the example with BASE_URL pointed at Prism; resolves to its exit code. */
function runExample(proxyUrl: string): Promise<number> {
  const example = spawn(bin('tsx'), [join(root, 'examples', 'quickstart.ts')], {
    cwd: root,
    env: { ...process.env, BASE_URL: proxyUrl },
    stdio: 'inherit',
  });
  return new Promise((done) => {
    example.once('error', () => done(1));
    example.once('exit', (code) => done(code ?? 1));
  });
}

/** Runs the check; returns the exit code (0 clean, 1 failed, 2 bad usage). */
async function main(): Promise<number> {
  let values: { document?: string };
  try {
    ({ values } = parseArgs({ options: { document: { type: 'string' } } }));
  } catch (error) {
    console.error(`${(error as Error).message}\nUsage: npm run contract:prism [-- --document <bundle.json>]`);
    return 2;
  }
  const upstream = process.env.BASE_URL || 'http://127.0.0.1:3000';
  if (!process.env.API_TOKEN) {
    console.error('API_TOKEN is not set: give the API key of an account (npm run admin -- account create --name <name>).');
    return 2;
  }
  const dir = await mkdtemp(join(tmpdir(), 'wps-prism-'));
  let prism: ChildProcess | undefined;
  const log = new PrismLog();
  try {
    const document = await prismDocument(resolve(values.document ?? join(root, 'generated', 'openapi.json')), dir);
    const port = await freePort();
    const proxyUrl = `http://127.0.0.1:${port}`;
    prism = spawn(bin('prism'), ['proxy', document, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    prism.stdout!.on('data', (chunk: Buffer) => log.add(chunk));
    prism.stderr!.on('data', (chunk: Buffer) => log.add(chunk));
    const stopOnSignal = () => void stopChild(prism!).then(() => process.exit(130));
    process.once('SIGINT', stopOnSignal).once('SIGTERM', stopOnSignal);
    await log.ready(prism);
    console.log(`Prism ${proxyUrl} → ${upstream} (--errors), contract ${values.document ?? 'generated/openapi.json'}`);

    const exampleCode = await runExample(proxyUrl);
    await stopChild(prism);

    const { received, upstream: answers, problems } = log.summary();
    const statuses = [...answers].map(([status, count]) => `${status}×${count}`).join(', ') || 'none';
    console.log(
      `\nPrism: ${received} requests received, ${[...answers.values()].reduce((a, b) => a + b, 0)} forwarded (answers: ${statuses}), ${problems.length} violations.`,
    );
    for (const line of problems) console.log(`  ${line}`);
    if (exampleCode !== 0) console.error(`The example failed (exit code ${exampleCode}).`);
    if (received === 0) console.error('No request went through Prism.');
    return exampleCode === 0 && problems.length === 0 && received > 0 ? 0 : 1;
  } catch (error) {
    console.error(`contract:prism: ${(error as Error).message}`);
    if (log.lines.length) console.error(log.lines.slice(-20).join('\n'));
    return 1;
  } finally {
    if (prism) await stopChild(prism);
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
