/**
 * A line chart of daily series with uPlot (https://github.com/leeoniya/uPlot), sized to its
 * container. Charts are images to assistive technology: each has a text alternative (`summary`)
 * and the page shows the same numbers as text (WCAG 1.1.1).
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: number[];
  /** A CSS colour. */
  color: string;
}

export function Chart({ title, days, series, summary }: { title: string; days: string[]; series: ChartSeries[]; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000), ...series.map((s) => s.values)];
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: 220,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true } },
      axes: [{ stroke: '#4a5568' }, { stroke: '#4a5568', size: 48 }],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: days.length <= 31 } }))],
      legend: { show: true },
    };
    const plot = new uPlot(opts, data, el);
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [days, series]);
  return (
    <figure className="chart card">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={summary} />
    </figure>
  );
}
