/**
 * The API keys this process verified lately, so that a request with a known key costs no
 * database round trip (src/security/apiTokens.ts looks here first).
 *
 * Bounded (10,000 keys, least recently used out first) and short-lived (30 s), keyed by the
 * SHA-256 of the key: the key itself is never held, and a lookup by hash leaks nothing useful
 * through its timing (finding a key from its hash's prefix is a preimage search).
 *
 * Revocation reaches every process and node within a second: the `api_tokens_changed` trigger
 * (prisma/README.md) notifies the revoked or deleted key's id on commit, and every process's
 * cache forgets it on receipt (src/db/notifications.ts). While this process is not listening
 * (before its first subscription, or after its session was lost) the cache is bypassed, so a
 * missed notification can never keep a revoked key alive; a read that raced a revocation is not
 * kept (see {@link ApiTokenCache.remember}).
 *
 * @module security/apiTokenCache
 */
import { LRUCache } from 'lru-cache';
import type { Listen } from '../db/notifications.ts';
import type { ApiKeyPrincipal } from './principal.ts';

/** The channel the `api_tokens_changed` trigger notifies, with the key's id as payload. */
export const API_TOKEN_CHANNEL = 'api_tokens_changed';

/** What is kept of a verified key. */
export interface CachedApiToken {
  id: string;
  accountId: string;
  /** The key as a caller (src/security/principal.ts). */
  principal: ApiKeyPrincipal;
  /** When `lastUsedAt` was last written, in ms since the epoch (null: never). */
  lastUsedAt: number | null;
}

/** Bounds of the cache. */
export interface ApiTokenCacheOptions {
  /** Most keys held (default 10,000). */
  max?: number;
  /** How long a key is trusted without a database read, in ms (default 30,000). */
  ttlMs?: number;
}

/** Verified API keys of this process, by the SHA-256 (hex) of the key. */
export class ApiTokenCache {
  private readonly entries: LRUCache<string, CachedApiToken>;
  private listening = false;
  private subscribed: Promise<void> | undefined;
  /** Moves on every notification and reset: a read that started before a move is not kept. */
  private generation = 0;

  constructor(
    private readonly listen: Listen,
    options: ApiTokenCacheOptions = {},
  ) {
    this.entries = new LRUCache({ max: options.max ?? 10_000, ttl: options.ttlMs ?? 30_000 });
  }

  /**
   * Subscribes to revocations on first use (later calls return the same promise). Never rejects:
   * without a subscription the cache stays bypassed.
   */
  start(): Promise<void> {
    this.subscribed ??= this.listen(API_TOKEN_CHANNEL, {
      notified: (tokenId) => this.forget(tokenId),
      reset: (listening) => {
        this.generation++;
        this.entries.clear();
        this.listening = listening;
      },
    }).then(
      () => undefined,
      () => undefined,
    );
    return this.subscribed;
  }

  /** The cached key of this hash; undefined when unknown, expired, or while not listening. */
  get(tokenHash: string): CachedApiToken | undefined {
    return this.listening ? this.entries.get(tokenHash) : undefined;
  }

  /** The generation to pass to {@link remember}, taken before the database read. */
  currentGeneration(): number {
    return this.generation;
  }

  /**
   * Keeps a key read from the database, unless a revocation or reset arrived since `generation`
   * was taken (the read may predate it) or the process is not listening.
   */
  remember(tokenHash: string, token: CachedApiToken, generation: number): void {
    if (this.listening && generation === this.generation) this.entries.set(tokenHash, token);
  }

  /**
   * Forgets the key with this id: a revocation or deletion committed by this process (called
   * after the commit, so the next request of this process reads the database) or announced by
   * another.
   */
  forget(tokenId: string): void {
    this.generation++;
    for (const [hash, token] of this.entries.entries()) if (token.id === tokenId) this.entries.delete(hash);
  }
}
