/**
 * PostgreSQL notifications (`LISTEN` / `NOTIFY`, https://www.postgresql.org/docs/current/sql-notify.html):
 * how one process learns, within milliseconds, that another process or node changed something it
 * keeps in memory. A notification sent in a transaction is delivered when it commits, to every
 * session listening on its channel, and never when it rolls back.
 *
 * A listener is told about the connection, not just the messages: notifications sent while the
 * listening session was down are lost, so {@link NotificationListener.reset} says "forget what
 * you derived from notifications" on every loss and again once listening resumes.
 *
 * @module db/notifications
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** What a subscriber to a channel is told. */
export interface NotificationListener {
  /** A notification of the channel was committed; `payload` is its text (empty when none). */
  notified(payload: string): void;
  /**
   * The listening session was lost (`listening: false`: notifications may be missed from now on)
   * or is listening again (`true`: from now on nothing is missed, but some may have been).
   */
  reset(listening: boolean): void;
}

/** Subscribes `listener` to `channel`; resolves to its unsubscribe function. */
export type Listen = (channel: string, listener: NotificationListener) => Promise<() => void>;

/** Notification channels are fixed identifiers of the service, never input. */
const CHANNEL = /^[a-z][a-z0-9_]{0,62}$/;

function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel)) throw new Error(`Not a notification channel name: ${channel}`);
}

/**
 * The embedded database: PGlite delivers its own notifications in process
 * (https://pglite.dev/docs/api#listen); there is one process, so nothing is ever missed.
 */
export function pgliteListen(pglite: PGlite): Listen {
  return async (channel, listener) => {
    checkChannel(channel);
    const unsubscribe = await pglite.listen(channel, (payload) => listener.notified(payload));
    listener.reset(true);
    return () => void unsubscribe();
  };
}

/** Reconnection delays after a lost listening session, in ms: doubling from 250 ms to 10 s. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

/** A PostgreSQL session that listens for every subscribed channel of a process. */
export interface PostgresNotifications {
  listen: Listen;
  /** Ends the session and stops reconnecting. Idempotent. */
  close(): Promise<void>;
}

/**
 * One dedicated connection (outside the pool: a pooled connection is shared, and `LISTEN` is
 * session state) that listens on every subscribed channel, opened on the first subscription.
 * When it is lost, every listener is reset to `false` at once, and the session is reopened with
 * back-off (250 ms doubling to 10 s); once it listens again, every listener is reset to `true`.
 */
export function postgresNotifications(connectionString: string): PostgresNotifications {
  const listeners = new Map<string, Set<NotificationListener>>();
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryMs = RETRY_MIN_MS;
  let closed = false;

  const everyListener = () => [...listeners.values()].flatMap((set) => [...set]);

  function lost(session: pg.Client): void {
    if (client !== session) return;
    client = null;
    void session.end().catch(() => {});
    for (const listener of everyListener()) listener.reset(false);
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect().catch(() => {});
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  }

  function connect(): Promise<void> {
    connecting ??= (async () => {
      const session = new pg.Client({ connectionString });
      session.on('notification', (message) => {
        for (const listener of listeners.get(message.channel) ?? []) listener.notified(message.payload ?? '');
      });
      session.on('error', () => lost(session));
      session.on('end', () => lost(session));
      try {
        await session.connect();
        for (const channel of listeners.keys()) await session.query(`LISTEN ${channel}`);
        if (closed) {
          await session.end();
          return;
        }
        client = session;
        retryMs = RETRY_MIN_MS;
        for (const listener of everyListener()) listener.reset(true);
      } catch (error) {
        void session.end().catch(() => {});
        scheduleReconnect();
        throw error;
      }
    })().finally(() => (connecting = null));
    return connecting;
  }

  return {
    async listen(channel, listener) {
      checkChannel(channel);
      const isNew = !listeners.has(channel);
      const set = listeners.get(channel) ?? new Set<NotificationListener>();
      listeners.set(channel, set);
      set.add(listener);
      if (client && isNew) await client.query(`LISTEN ${channel}`);
      if (client) listener.reset(true);
      else await connect().catch(() => {}); // resets the listener once connected, now or on a retry
      return () => void set.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const session = client;
      client = null;
      await connecting?.catch(() => {});
      await session?.end().catch(() => {});
    },
  };
}
