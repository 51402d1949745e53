/**
 * Work that must wait until a transaction has committed: the after-commit hooks of a transaction
 * (Django's `transaction.on_commit`, Rails' `after_commit`). A module that writes inside a
 * transaction says what it wrote on a named channel ({@link afterCommit}); once the transaction
 * has committed, the database's {@link CommitSignals} hand every payload said on the channel to
 * the channel's listener, and the transaction's caller gets its result only after that. A
 * transaction that rolls back (or is run again after losing to a concurrent one,
 * src/db/contention.ts) says nothing.
 *
 * Statements outside a transaction (the database's autocommit executors, `Database.sql` and
 * `Database.prisma`) are committed when they return: what is said on them reaches the listener
 * at once. What is said on a transaction the database did not open (one a test opens on the
 * Prisma client itself) reaches nobody: a listener must not be the only way its work gets done.
 *
 * This is how the domain announces a pass change without knowing who delivers it
 * (src/domain/passes/passChanges.ts says; src/delivery/passChangeRelay.ts listens).
 *
 * @module db/afterCommit
 */

/** Receives the payloads said on its channel by one committed transaction (or one autocommit statement). */
export type CommitListener = (payloads: readonly unknown[]) => Promise<void>;

/** What each open transaction has said, by channel. */
const said = new WeakMap<object, Map<string, unknown[]>>();
/** The signals of the database each autocommit executor belongs to. */
const autocommitSignals = new WeakMap<object, CommitSignals>();

/** The listeners of one database (`Database.commits`). */
export class CommitSignals {
  private readonly listeners = new Map<string, CommitListener>();

  /**
   * Sets the listener of a channel (one per channel: a second replaces the first).
   * @returns A function that removes it.
   */
  on(channel: string, listener: CommitListener): () => void {
    this.listeners.set(channel, listener);
    return () => {
      if (this.listeners.get(channel) === listener) this.listeners.delete(channel);
    };
  }

  /** Makes `executor` an autocommit executor of this database: what is said on it is heard at once. */
  autocommit(executor: object): void {
    autocommitSignals.set(executor, this);
  }

  /** Starts recording what is said on the transaction `tx` (the database calls it as it opens one). */
  begin(tx: object): void {
    said.set(tx, new Map());
  }

  /**
   * Hands what was said on the committed transaction `tx` to the listeners, channel by channel.
   * A listener's failure is its own to report: it is not rethrown (the transaction committed).
   */
  async committed(tx: object): Promise<void> {
    const channels = said.get(tx);
    said.delete(tx);
    if (!channels) return;
    for (const [channel, payloads] of channels) await this.emit(channel, payloads);
  }

  private async emit(channel: string, payloads: readonly unknown[]): Promise<void> {
    const listener = this.listeners.get(channel);
    if (listener) await listener(payloads).catch(() => {});
  }

  /** @internal What {@link afterCommit} calls for an autocommit executor. */
  async now(channel: string, payload: unknown): Promise<void> {
    await this.emit(channel, [payload]);
  }
}

/**
 * Says `payload` on `channel` once what `executor` wrote is committed: at the commit of the
 * transaction `executor` is, or at once when `executor` runs each statement on its own. Awaiting
 * it inside a transaction waits for nothing.
 */
export async function afterCommit(executor: object, channel: string, payload: unknown): Promise<void> {
  const channels = said.get(executor);
  if (channels) {
    const payloads = channels.get(channel);
    if (payloads) payloads.push(payload);
    else channels.set(channel, [payload]);
    return;
  }
  await autocommitSignals.get(executor)?.now(channel, payload);
}
