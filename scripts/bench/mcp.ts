/**
 * Benchmark: the MCP server at `/mcp` (src/mcp/). The real server (`src/server.ts`, a child
 * process, response validation off as in production, no rate limit) with one account, template
 * and pass; requests one at a time over loopback from this process, after a warm-up, each kind
 * interleaved with the others so that they share the machine's state:
 *
 * - `tools/list` (all 47 tools of a secret key, protocol revision 2025-11-25 as most clients speak
 *   it, answered as one server-sent event): its p50 and p95, time to the last byte;
 * - `tools/call getPass` against `GET /api/v1/passes/{id}` of the same pass — the HTTP request
 *   the tool runs in-process — and their p50 difference: what a tool call costs more than the
 *   REST request.
 *
 * Then each kind again, {@link SAMPLES} requests in rounds of {@link CPU_BATCH} of each kind, for
 * the CPU time the server process's threads spent per request (Linux /proc schedstat,
 * scripts/bench/support/processCpu.ts): unlike
 * latency, it hardly moves with the machine's load, so a tool call's overhead can be read on a
 * busy machine too (it is reported, not a target).
 *
 * Targets: `tools/list` p95 ≤ 20 ms; a tool call ≤ 1 ms p50 more than the same HTTP request.
 * Environment: BENCH_SAMPLES (per kind, default 500), BENCH_WARMUP (per kind, default 100).
 * Exits 1 when a target is missed.
 *
 * @module scripts/bench/mcp
 */
import { cpus, loadavg } from 'node:os';
import { benchTemplate } from './support/benchTemplate.ts';
import { benchRequest as request, startBenchServer } from './support/benchServer.ts';
import { threadCpuTimeMs } from './support/processCpu.ts';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const TARGET_LIST_P95_MS = 20;
const TARGET_CALL_OVERHEAD_MS = 1;
/** Requests of one kind in a row while CPU time is measured. */
const CPU_BATCH = 50;

/** p-th percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A service with one pass: its key and the pass id. */
async function seed(base: string, adminToken: string): Promise<{ token: string; passId: string }> {
  const account = await request(`${base}/admin/v1/accounts`, { method: 'POST', token: adminToken, body: { account: { name: 'Bench' } } });
  const token = account.included[0].attributes.token as string;
  await request(`${base}/admin/v1/accounts/${account.data.id}/entities`, { method: 'POST', token: adminToken, body: { entity: { name: 'Bench shop' } } });
  const template = await request(`${base}/api/v1/pass-templates`, { method: 'POST', token, body: { passTemplate: benchTemplate() } });
  for (;;) {
    const { data } = await request(template.meta.links.self, { token });
    if (data.attributes.processingStatus === 'failed') throw new Error(`The bench template failed processing: ${JSON.stringify(data.attributes)}`);
    if (data.attributes.processingStatus !== 'processing') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const pass = await request(`${base}/api/v1/passes?passTemplate=${template.id}`, { method: 'POST', token, body: { pass: { member: 'Ada' } } });
  return { token, passId: pass.data.id as string };
}

async function main(): Promise<void> {
  const server = await startBenchServer();
  try {
    const { token, passId } = await seed(server.base, server.adminToken);
    const mcpHeaders = {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
    };
    const mcp = (body: unknown) => fetch(`${server.base}/mcp`, { method: 'POST', headers: mcpHeaders, body: JSON.stringify(body) });
    const kinds: Record<string, () => Promise<Response>> = {
      'tools/list': () => mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      'GET /api/v1/passes/{id}': () => fetch(`${server.base}/api/v1/passes/${passId}`, { headers: { Authorization: `Bearer ${token}` } }),
      'tools/call getPass': () => mcp({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'getPass', arguments: { id: passId } } }),
    };
    const check = async (name: string, res: Response): Promise<void> => {
      const text = await res.text();
      if (res.status !== 200 || (name.startsWith('tools/') && !text.includes('"result"')) || text.includes('"isError":true'))
        throw new Error(`${name} answered ${res.status}: ${text.slice(0, 300)}`);
    };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      for (const [name, send] of Object.entries(kinds)) {
        const started = performance.now();
        await check(name, await send());
        if (i >= WARMUP) times[name]!.push(performance.now() - started);
      }
    }
    for (const t of Object.values(times)) t.sort((a, b) => a - b);
    // CPU: rounds of CPU_BATCH requests of each kind in turn, so that drift spreads evenly.
    const cpuUs: Record<string, number> = Object.fromEntries(Object.keys(kinds).map((k) => [k, 0]));
    for (let done = 0; done < SAMPLES; done += CPU_BATCH) {
      for (const [name, send] of Object.entries(kinds)) {
        const before = threadCpuTimeMs(server.pid);
        for (let i = 0; i < CPU_BATCH; i++) await check(name, await send());
        cpuUs[name]! += ((threadCpuTimeMs(server.pid) - before) * 1000) / SAMPLES;
      }
    }
    const listSize = (await (await kinds['tools/list']!()).text()).length;
    console.log(
      `MCP at /mcp: ${SAMPLES} samples per kind after ${WARMUP} warm-up, one at a time; ${cpus().length} CPUs, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    for (const [name, t] of Object.entries(times)) {
      console.log(
        `${name.padEnd(26)} p50 ${percentile(t, 50).toFixed(2).padStart(6)} ms   p95 ${percentile(t, 95).toFixed(2).padStart(6)} ms   server CPU ${cpuUs[name]!.toFixed(0).padStart(5)} µs/request`,
      );
    }
    const listP95 = percentile(times['tools/list']!, 95);
    const overhead = percentile(times['tools/call getPass']!, 50) - percentile(times['GET /api/v1/passes/{id}']!, 50);
    const ratio = percentile(times['tools/call getPass']!, 50) / percentile(times['GET /api/v1/passes/{id}']!, 50);
    console.log(`tools/list answer: ${(listSize / 1024).toFixed(0)} KiB`);
    const missed: string[] = [];
    console.log(`tools/list p95 ${listP95.toFixed(2)} ms (target ≤ ${TARGET_LIST_P95_MS} ms)`);
    if (listP95 > TARGET_LIST_P95_MS) missed.push('tools/list p95');
    console.log(`tool call − HTTP request, p50: ${overhead.toFixed(2)} ms (×${ratio.toFixed(2)}; target ≤ ${TARGET_CALL_OVERHEAD_MS} ms)`);
    console.log(`tool call − HTTP request, server CPU: ${(cpuUs['tools/call getPass']! - cpuUs['GET /api/v1/passes/{id}']!).toFixed(0)} µs per request`);
    if (overhead > TARGET_CALL_OVERHEAD_MS) missed.push('tool call overhead');
    if (missed.length) {
      console.log(`Missed: ${missed.join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    await server.stop();
  }
}

await main();
