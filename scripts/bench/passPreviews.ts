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
 * 2. Through HTTP: 10 concurrent designers, each sending `POST /api/v1/pass-templates/preview`
 *    (SVG) with a design changed on every request, for BENCH_DURATION seconds (default 10)
 *    against the real server (`src/server.ts`, embedded database). Reports previews per second
 *    (rows/s); no target (the figure depends on the machine).
 *
 * Environment: BENCH_SAMPLES (renders per kind, default 200), BENCH_DURATION.
 * Exits 1 when a rendering target is missed.
 *
 * @module scripts/bench/passPreviews
 */
import { performance } from 'node:perf_hooks';
import satori from 'satori';
import { designOf, newTemplateContent, type PassTemplateCreate } from '../../src/domain/passTemplates/templateContent.ts';
import { previewFonts } from '../../src/wallet/preview/fontMetrics.ts';
import { previewCard, type PreviewCard } from '../../src/wallet/preview/previewCard.ts';
import { PreviewCache, rasterisePreview, renderPreview, type PreviewOptions } from '../../src/wallet/preview/renderPreview.ts';
import * as designs from '../../test/support/previewDesigns.ts';
import { benchRequest as request, startBenchServer } from './support/benchServer.ts';

const TARGETS = { cached: 2, svg: 30, png: 120 };
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

async function designers(): Promise<void> {
  const server = await startBenchServer();
  try {
    const { base } = server;
    const account = await request(`${base}/admin/v1/accounts`, { method: 'POST', token: server.adminToken, body: { account: { name: 'Bench' } } });
    const token = account.included[0].attributes.token as string;
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
await designers();
process.exit(met ? 0 : 1);
