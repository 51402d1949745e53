/**
 * Benchmark: pass previews (src/wallet/preview/).
 *
 * 1. Rendering only, in this process, over the fixed designs of the preview tests (each Apple
 *    style and Google card of test/support/previewDesigns.ts), one render at a time after a
 *    warm-up:
 *    - cold SVG: satori lays out and draws a card not drawn before (a value changes per sample,
 *      as a designer's keystroke does);
 *    - cold PNG @2x: the same, rasterised by resvg;
 *    - cached: the answer of the cache of rendered output (`PreviewCache`, by entity tag);
 *    - baseline: satori drawing one line of text, the floor of any satori render, in the same run.
 *    Targets (p95): cached ≤ 2 ms, cold SVG ≤ 30 ms, cold PNG @2x ≤ 120 ms. Also printed: the CPU
 *    time of this process per render, which stays fair when other work shares the cores.
 * 2. Scripts, in this process after the Latin renders (so no font but Inter's Latin subset was
 *    loaded before): the first render of a card that needs a Chinese, Japanese or Korean font
 *    (one per language of test/support/scriptSamples.ts: the fonts of each are read then), and
 *    cold SVG renders of those cards afterwards (a value changes per sample). Targets: each first
 *    render ≤ 400 ms, later ones p95 ≤ 40 ms.
 * 3. Memory, through HTTP against the real server (`src/server.ts`, embedded database): the
 *    server's resident set (RSS, /proc/<pid>/status) after drawing the Latin designs, after
 *    drawing a card per sample of test/support/scriptSamples.ts in private-use characters (drawn
 *    with Inter alone, as every script was before the fallback fonts: the same work without
 *    them), then after drawing the same cards in their scripts (SVG and PNG, Apple and Google).
 *    Target: the scripts add ≤ 80 MB to the private-use round (which includes the growth of the
 *    preview cache, so overstates the fonts' share).
 * 4. Through HTTP: 10 concurrent designers, each sending `POST /api/v1/pass-templates/preview`
 *    (SVG) with a design changed on every request, for BENCH_DURATION seconds (default 10)
 *    against the real server. Reports previews per second (rows/s); no target (the figure
 *    depends on the machine).
 *
 * Environment: BENCH_SAMPLES (renders per kind, default 200), BENCH_DURATION.
 * Exits 1 when a target is missed.
 *
 * @module scripts/bench/passPreviews
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import satori from 'satori';
import { designOf, newTemplateContent, type PassTemplateCreate } from '../../src/domain/passTemplates/templateContent.ts';
import { previewFonts } from '../../src/wallet/preview/fontMetrics.ts';
import { previewCard, type PreviewCard } from '../../src/wallet/preview/previewCard.ts';
import { PreviewCache, rasterisePreview, renderPreview, type PreviewOptions } from '../../src/wallet/preview/renderPreview.ts';
import * as designs from '../../test/support/previewDesigns.ts';
import { CJK_SAMPLES, missingGlyphTwin, SCRIPT_SAMPLES, type ScriptSample } from '../../test/support/scriptSamples.ts';
import { type BenchServer, benchRequest as request, startBenchServer } from './support/benchServer.ts';

const TARGETS = { cached: 2, svg: 30, png: 120, firstCjk: 400, laterCjk: 40, scriptsRssMb: 80 };
const samples = Number(process.env.BENCH_SAMPLES ?? 200);
const durationMs = Number(process.env.BENCH_DURATION ?? 10) * 1000;
const DESIGNERS = 10;

const inputs = Object.values(designs) as unknown as PassTemplateCreate[];
const cards: { card: PreviewCard; options: PreviewOptions }[] = inputs.flatMap((input) => {
  const design = designOf(newTemplateContent(input));
  const images = { logo: input.images!.logo!, strip: input.images!.banner!, hero: input.images!.banner!, icon: input.images!.icon! };
  const card = previewCard(design, design.defaultLanguage, images);
  return (['apple', 'google'] as const).map((platform) => ({ card, options: { platform, side: 'front' as const } }));
});

/** A card whose primary value differs per sample: nothing about it was drawn before. */
function changed(i: number): { card: PreviewCard; options: PreviewOptions } {
  const { card, options } = cards[Math.abs(i) % cards.length]!;
  const primary = card.primary.map((f, n) => (n === 0 ? { ...f, value: `${f.value.slice(0, 12)} ${i}` } : f));
  return { card: { ...card, primary }, options };
}

function percentiles(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { p50: at(50), p95: at(95) };
}

/** Wall-clock p50/p95 per run, and the mean CPU time of this process per run (fair on a busy machine). */
async function timed(run: (i: number) => Promise<unknown> | unknown): Promise<{ p50: number; p95: number; cpu: number }> {
  for (let i = 0; i < 20; i++) await run(-1 - i);
  const times: number[] = [];
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await run(i);
    times.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuStart);
  return { ...percentiles(times), cpu: (cpu.user + cpu.system) / 1000 / samples };
}

async function rendering(): Promise<boolean> {
  const fonts = previewFonts();
  const baseline = await timed((i) =>
    satori({ type: 'div', props: { style: { display: 'flex', fontFamily: 'Inter', fontSize: 16 }, children: `Baseline ${i}` } } as never, {
      width: 320,
      height: 40,
      fonts,
    }),
  );
  const svg = await timed((i) => {
    const { card, options } = changed(i);
    return renderPreview(card, options);
  });
  const png = await timed(async (i) => {
    const { card, options } = changed(i);
    return rasterisePreview((await renderPreview(card, options)).svg, 2);
  });
  const cache = new PreviewCache();
  for (let i = 0; i < cards.length; i++) {
    const { card, options } = cards[i]!;
    const rendered = await renderPreview(card, options);
    cache.set(`"tag-${i}"`, { body: rasterisePreview(rendered.svg, 2), warnings: rendered.warnings });
  }
  const cached = await timed((i) => cache.getOrRender(`"tag-${Math.abs(i) % cards.length}"`, () => Promise.reject(new Error('miss'))));
  const row = (name: string, r: { p50: number; p95: number; cpu: number }, target?: number) =>
    console.log(
      `${name.padEnd(22)} p50 ${r.p50.toFixed(2).padStart(7)} ms  p95 ${r.p95.toFixed(2).padStart(7)} ms  CPU ${r.cpu.toFixed(2).padStart(7)} ms/run  ${(r.p95 / baseline.p95).toFixed(1).padStart(5)}× baseline p95${target === undefined ? '' : `  target p95 ≤ ${target} ms ${r.p95 <= target ? 'met' : 'MISSED'}`}`,
    );
  console.log(`Rendering, ${samples} samples each, ${cards.length} cards (5 designs × Apple and Google):`);
  row('baseline (one line)', baseline);
  row('cold SVG', svg, TARGETS.svg);
  row('cold PNG @2x', png, TARGETS.png);
  row('cached', cached, TARGETS.cached);
  return svg.p95 <= TARGETS.svg && png.p95 <= TARGETS.png && cached.p95 <= TARGETS.cached;
}

/** A card of the loyalty design whose title and member are a sample's text (with a number from `i` after the member). */
function scriptCard(sample: ScriptSample, i: number): { card: PreviewCard; options: PreviewOptions } {
  const { card, options } = cards[0]!;
  const primary = card.primary.map((f, n) => (n === 0 ? { ...f, value: `${sample.text} ${i}` } : f));
  return { card: { ...card, language: sample.language, title: sample.text, primary }, options };
}

async function cjkRendering(): Promise<boolean> {
  const firsts = [];
  for (const sample of CJK_SAMPLES) {
    const { card, options } = scriptCard(sample, 0);
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await renderPreview(card, options);
    const cpu = process.cpuUsage(cpuStart);
    firsts.push({ sample, ms: performance.now() - start, cpu: (cpu.user + cpu.system) / 1000 });
  }
  const later = await timed((i) => {
    const { card, options } = scriptCard(CJK_SAMPLES[Math.abs(i) % CJK_SAMPLES.length]!, i);
    return renderPreview(card, options);
  });
  const firstMet = firsts.every((f) => f.ms <= TARGETS.firstCjk);
  console.log(`Scripts: Chinese, Japanese and Korean cards after the Latin ones, in this process:`);
  for (const { sample, ms, cpu } of firsts)
    console.log(
      `first ${sample.language.padEnd(16)} ${ms.toFixed(1).padStart(7)} ms  CPU ${cpu.toFixed(1).padStart(7)} ms  target ≤ ${TARGETS.firstCjk} ms ${ms <= TARGETS.firstCjk ? 'met' : 'MISSED'}`,
    );
  console.log(
    `later CJK cold SVG      p50 ${later.p50.toFixed(2).padStart(7)} ms  p95 ${later.p95.toFixed(2).padStart(7)} ms  CPU ${later.cpu.toFixed(2).padStart(7)} ms/run  target p95 ≤ ${TARGETS.laterCjk} ms ${later.p95 <= TARGETS.laterCjk ? 'met' : 'MISSED'}`,
  );
  return firstMet && later.p95 <= TARGETS.laterCjk;
}

/** A difference as `+1.5` or `-1.5`. */
const signed = (mb: number) => `${mb < 0 ? '-' : '+'}${Math.abs(mb).toFixed(1)}`;

/** The resident set of a process in MB (Linux /proc). */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** Starts the real server with an account; its base URL and the account's API token. */
async function benchAccount(): Promise<{ server: BenchServer; base: string; token: string }> {
  const server = await startBenchServer();
  const account = await request(`${server.base}/admin/v1/accounts`, { method: 'POST', token: server.adminToken, body: { account: { name: 'Bench' } } });
  return { server, base: server.base, token: account.included[0].attributes.token as string };
}

async function scriptMemory(): Promise<boolean> {
  const { server, base, token } = await benchAccount();
  try {
    const draw = async (passTemplate: unknown) => {
      for (const platform of ['apple', 'google']) {
        for (const accept of ['image/svg+xml', 'image/png']) {
          const res = await fetch(`${base}/api/v1/pass-templates/preview?platform=${platform}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: accept },
            body: JSON.stringify({ passTemplate }),
          });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`preview answered ${res.status}`);
        }
      }
    };
    const drawSamples = async (text: (sample: ScriptSample) => string) => {
      for (let round = 0; round < 3; round++) {
        for (const sample of SCRIPT_SAMPLES) {
          const loyalty = designs.LOYALTY_DESIGN;
          await draw({
            ...loyalty,
            centralTitle: `${text(sample)} ${round}`,
            fields: { ...loyalty.fields, central: { one: { ...loyalty.fields.central.one, defaultValue: text(sample) } } },
          });
        }
      }
    };
    const started = rssMb(server.pid);
    for (let round = 0; round < 3; round++)
      for (const input of inputs) await draw({ ...input, centralTitle: `${(input as { centralTitle: string }).centralTitle} ${round}` });
    const latin = rssMb(server.pid);
    // The same cards with private-use characters: drawn with Inter alone (boxes), as every script was before.
    await drawSamples((sample) => missingGlyphTwin(sample.text));
    const twins = rssMb(server.pid);
    await drawSamples((sample) => sample.text);
    const every = rssMb(server.pid);
    const added = every - twins;
    console.log(
      `Server RSS: ${started.toFixed(1)} MB at start, ${latin.toFixed(1)} MB after the Latin designs, ${twins.toFixed(1)} MB after every card drawn in private-use characters (${signed(twins - latin)} MB, Inter only), ${every.toFixed(1)} MB after the same cards in every script (${SCRIPT_SAMPLES.length} samples × 3 rounds × SVG and PNG × Apple and Google): ${signed(added)} MB  target ≤ ${TARGETS.scriptsRssMb} MB ${added <= TARGETS.scriptsRssMb ? 'met' : 'MISSED'}`,
    );
    return added <= TARGETS.scriptsRssMb;
  } finally {
    await server.stop();
  }
}

async function designers(): Promise<void> {
  const { server, base, token } = await benchAccount();
  try {
    const end = performance.now() + durationMs;
    let done = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: DESIGNERS }, async (_, designer) => {
        for (let keystroke = 0; performance.now() < end; keystroke++) {
          const input = inputs[(designer + keystroke) % inputs.length]! as PassTemplateCreate & { centralTitle: string };
          const body = { passTemplate: { ...input, centralTitle: `${input.centralTitle.slice(0, 8)} ${designer}-${keystroke}` } };
          const res = await fetch(`${base}/api/v1/pass-templates/preview`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'image/svg+xml' },
            body: JSON.stringify(body),
          });
          await res.arrayBuffer();
          if (res.status === 200) done++;
          else failed++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `POST /api/v1/pass-templates/preview, ${DESIGNERS} concurrent designers, ${seconds.toFixed(1)} s: ${(done / seconds).toFixed(1)} rows/s (${done} previews, ${failed} failed)`,
    );
  } finally {
    await server.stop();
  }
}

const met = await rendering();
const cjkMet = await cjkRendering();
const memoryMet = await scriptMemory();
await designers();
process.exit(met && cjkMet && memoryMet ? 0 : 1);
