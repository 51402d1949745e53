/**
 * The account's activity over a chosen range of days (getStats), as figures and charts. The
 * charts' library loads while the figures are fetched, and the charts (last on the page, so
 * nothing moves when they appear) are drawn once both are there.
 */
import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api.ts';
import { useSession } from '../session.tsx';
import { Chart, useChartLibrary } from '../components/Chart.tsx';
import { Loading, PageTitle } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors } from '../components/forms.tsx';
import { href } from '../router.ts';

type Day = Schemas['AccountStatsDay'];

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const daysBefore = (n: number) => isoDay(new Date(Date.now() - n * 86_400_000));
const sum = (days: Day[], key: keyof Omit<Day, 'date'>) => days.reduce((total, day) => total + day[key], 0);

export function Overview() {
  const [range, setRange] = useState({ from: daysBefore(29), to: isoDay(new Date()) });
  const { can } = useSession();
  const lib = useChartLibrary();
  const query = useQuery({
    queryKey: ['stats', range],
    queryFn: () => ok(api.GET('/api/v1/stats', { params: { query: { ...range, interval: 'day' } } })),
  });
  const days = query.data?.data.attributes.days ?? [];
  const dates = useMemo(() => days.map((d) => d.date), [days]);
  const charts = useMemo(
    () => ({
      passes: [
        { label: 'Issued', values: days.map((d) => d.passesIssued), color: '#1d4ed8' },
        { label: 'Added to Apple Wallet', values: days.map((d) => d.passesInstalledApple), color: '#047857' },
        { label: 'Added to Google Wallet', values: days.map((d) => d.passesInstalledGoogle), color: '#b45309' },
        { label: 'Removed', values: days.map((d) => d.passesRemoved), color: '#b91c1c' },
      ],
      scans: [{ label: 'Scans', values: days.map((d) => d.scans), color: '#6d28d9' }],
      failures: [
        { label: 'Wallet delivery failures', values: days.map((d) => d.deliveryFailures), color: '#b91c1c' },
        { label: 'Webhook failures', values: days.map((d) => d.webhookFailures), color: '#9d174d' },
      ],
    }),
    [days],
  );
  const last24 = query.data?.data.attributes.last24Hours;
  const figures: [string, number][] = [
    ['Passes issued', sum(days, 'passesIssued')],
    ['Added to Apple Wallet', sum(days, 'passesInstalledApple')],
    ['Added to Google Wallet', sum(days, 'passesInstalledGoogle')],
    ['Removed', sum(days, 'passesRemoved')],
    ['Scans', sum(days, 'scans')],
  ];
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <form className="range card" onSubmit={(e) => e.preventDefault()} aria-label="Range">
        <ErrorScope error={query.error}>
          <fieldset className="presets">
            <legend className="visually-hidden">Preset ranges</legend>
            {[7, 30, 90, 365].map((n) => (
              <button key={n} type="button" className="secondary" onClick={() => setRange({ from: daysBefore(n - 1), to: isoDay(new Date()) })}>
                {n} days
              </button>
            ))}
          </fieldset>
          <Field
            label="From"
            pointer="from"
            type="date"
            value={range.from}
            max={range.to}
            onChange={(e) => e.target.value && setRange({ ...range, from: e.target.value })}
          />
          <Field
            label="To"
            pointer="to"
            type="date"
            value={range.to}
            min={range.from}
            onChange={(e) => e.target.value && setRange({ ...range, to: e.target.value })}
          />
        </ErrorScope>
      </form>
      <FormErrors error={query.error} shown={['from', 'to']} />
      {query.isPending && <Loading what="Counting" />}
      {query.data && (
        <>
          <section aria-labelledby="figures" className="figures">
            <h2 id="figures" className="visually-hidden">
              Totals from {range.from} to {range.to}
            </h2>
            {figures.map(([label, value]) => (
              <div className="figure card" key={label}>
                <span className="figure-value">{value.toLocaleString()}</span>
                <span className="figure-label">{label}</span>
              </div>
            ))}
            <div className={`figure card${last24 && last24.deliveryFailures + last24.webhookFailures > 0 ? ' warn' : ''}`}>
              <span className="figure-value">
                {last24?.deliveryFailures ?? 0} / {last24?.webhookFailures ?? 0}
              </span>
              <span className="figure-label">Delivery / webhook failures, last 24 h</span>
            </div>
          </section>
          {sum(days, 'passesIssued') === 0 && (
            <p className="empty">
              No pass was issued in this range.
              {can('templates:write') && can('passes:write') && (
                <>
                  {' '}
                  <a href={href('/templates/new')}>Design a template</a>, then <a href={href('/issue')}>issue a pass</a>.
                </>
              )}
            </p>
          )}
          {lib && (
            <div className="charts">
              <Chart
                lib={lib}
                title="Passes per day"
                days={dates}
                series={charts.passes}
                summary={`Passes per day: ${figures
                  .slice(0, 4)
                  .map(([l, v]) => `${l} ${v}`)
                  .join(', ')}.`}
              />
              <Chart lib={lib} title="Scans per day" days={dates} series={charts.scans} summary={`Scans per day, ${sum(days, 'scans')} in total.`} />
              <Chart
                lib={lib}
                title="Failures per day"
                days={dates}
                series={charts.failures}
                summary={`Wallet delivery failures ${sum(days, 'deliveryFailures')}, webhook failures ${sum(days, 'webhookFailures')} in the range.`}
              />
            </div>
          )}
        </>
      )}
    </>
  );
}
