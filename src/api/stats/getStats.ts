import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { ValidationError } from '../../errors.ts';
import { selectStatsDays, selectStatsFailures } from '../../domain/stats/statsStore.ts';

const DAY_MS = 86_400_000;
/** The longest range, in days, `from` and `to` included (the contract's StatsTo). */
const MAX_DAYS = 366;

const isoDay = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * `GET /api/v1/stats`: the account's counts per UTC day over `from`..`to` (both inclusive; by
 * default the 30 days ending today) and the failures of the last 24 hours.
 * @throws ValidationError (`parameter` `to`) when `to` is before `from` or the range is longer than 366 days.
 */
export const getStats: OperationHandler<'getStats'> = async ({ query, ctx }) => {
  const accountId = accountOf(ctx);
  const now = ctx.clock.now();
  const to = query.to ?? isoDay(now);
  const from = query.from ?? isoDay(new Date(Date.parse(to) - 29 * DAY_MS));
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (days < 1) throw new ValidationError({ detail: `to (${to}) is before from (${from}).`, source: { parameter: 'to' } });
  if (days > MAX_DAYS) {
    throw new ValidationError({
      detail: `The range from ${from} to ${to} is ${days} days long; at most ${MAX_DAYS} are counted.`,
      source: { parameter: 'to' },
    });
  }
  const [series, last24Hours] = await Promise.all([
    selectStatsDays(ctx.db.prisma, accountId, from, to),
    selectStatsFailures(ctx.db.prisma, accountId, new Date(now.getTime() - DAY_MS)),
  ]);
  return { status: 200, body: { data: { id: accountId, type: 'stats', attributes: { from, to, interval: 'day', days: series, last24Hours } } } };
};
