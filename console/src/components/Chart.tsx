/**
 * A line chart of daily series with uPlot (https://github.com/leeoniya/uPlot), sized to its
 * container. Charts are images to assistive technology: each has a text alternative (`summary`)
 * and the page shows the same numbers as text (WCAG 1.1.1).
 *
 * uPlot is a chunk of its own, loaded by the pages that draw charts ({@link useChartLibrary}),
 * so that the console's first script — which every page loads, the designer included — does not
 * carry it (scripts/bench/consoleLighthouse.ts). Its style sheet is small and stays in the console's.
 */
import { useEffect, useRef, useState } from 'react';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** uPlot's constructor (the module's default export). */
export type ChartLibrary = typeof uPlot;

let library: Promise<ChartLibrary> | null = null;

/** Loads uPlot's chunk, once for the page's life. */
export function loadChartLibrary(): Promise<ChartLibrary> {
  library ??= import('uplot').then((module) => module.default);
  return library;
}

/**
 * uPlot once its chunk has loaded, null until then (or when it cannot be loaded). Call it when the
 * page opens, so the chunk loads while the page fetches its data.
 */
export function useChartLibrary(): ChartLibrary | null {
  const [loaded, setLoaded] = useState<ChartLibrary | null>(null);
  useEffect(() => {
    let live = true;
    loadChartLibrary().then(
      (lib) => live && setLoaded(() => lib),
      (error: unknown) => console.error('The chart library did not load:', error),
    );
    return () => {
      live = false;
    };
  }, []);
  return loaded;
}

export interface ChartSeries {
  label: string;
  values: number[];
  /** A CSS colour. */
  color: string;
}

/** A chart drawn with `lib` ({@link useChartLibrary}). */
export function Chart({ lib, title, days, series, summary }: { lib: ChartLibrary; title: string; days: string[]; series: ChartSeries[]; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000), ...series.map((s) => s.values)];
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: 220,
      tzDate: (ts) => lib.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true } },
      axes: [{ stroke: '#4a5568' }, { stroke: '#4a5568', size: 48 }],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: days.length <= 31 } }))],
      legend: { show: true },
    };
    const plot = new lib(opts, data, el);
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [lib, days, series]);
  return (
    <figure className="chart card">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={summary} />
    </figure>
  );
}
