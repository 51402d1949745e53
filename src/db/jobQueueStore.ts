/**
 * What the service reads of pg-boss's job table itself (`pgboss.job`,
 * https://timgit.github.io/pg-boss/): for the metrics, per queue, its jobs in each state and how
 * long its oldest due job has waited; for the job queue on PGlite, which queues have a job due.
 *
 * @module db/jobQueueStore
 */
import type { PGlite } from '@electric-sql/pglite';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Database } from './database.ts';
import { queryRows } from './rows.ts';

/** One queue's counts. */
export interface JobQueueCounts {
  /** The queue's name. */
  name: string;
  /** Jobs waiting (`created`). */
  created: number;
  /** Jobs waiting to be retried. */
  retry: number;
  /** Jobs being worked. */
  active: number;
  /** Jobs that failed for good (kept until deleted). */
  failed: number;
  /** Seconds the oldest due waiting job has waited (0: none). */
  oldest: number;
}

/** Counts of pg-boss's jobs per queue and state, and the oldest due waiting job's age in seconds, by queue name. */
export function selectJobQueueCounts(db: Pick<Database, 'prisma'>): Promise<JobQueueCounts[]> {
  return queryRows<JobQueueCounts>(
    db.prisma,
    Prisma.sql`
      SELECT name,
             count(*) FILTER (WHERE state = 'created')::int AS created,
             count(*) FILTER (WHERE state = 'retry')::int AS retry,
             count(*) FILTER (WHERE state = 'active')::int AS active,
             count(*) FILTER (WHERE state = 'failed')::int AS failed,
             COALESCE(EXTRACT(EPOCH FROM now() - min(start_after) FILTER (WHERE state IN ('created', 'retry') AND start_after <= now())), 0)::float8 AS oldest
        FROM pgboss.job GROUP BY name ORDER BY name`,
  );
}

/**
 * The queues among `names` with a job due now: what pg-boss's fetch would take (its conditions,
 * its clock, its index `job_i5`), in one read-only statement on PGlite's connection.
 */
export async function selectDueQueues(pglite: PGlite, names: readonly string[]): Promise<string[]> {
  const { rows } = await pglite.query<{ name: string }>(
    `SELECT DISTINCT name FROM pgboss.job WHERE name = ANY($1::text[]) AND state < 'active' AND NOT blocked AND start_after <= pgboss.job_now()`,
    [[...names]],
  );
  return rows.map((row) => row.name);
}
