/**
 * The clock: every "now" of the service comes from an injected {@link Clock}, so that tests can
 * set and move time (idempotency-key expiry, scheduled batches, retry back-off).
 *
 * @module clock
 */

/** A source of the current time. */
export interface Clock {
  now(): Date;
}

/** The system clock. */
export const systemClock: Clock = { now: () => new Date() };
