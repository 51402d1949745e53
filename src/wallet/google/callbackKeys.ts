/**
 * Google's root signing keys of Wallet callbacks (`GOOGLE_WALLET_CALLBACK_KEYS_URL`, by default
 * `https://pay.google.com/gp/m/issuer/keys`; Google, "Add and delete callbacks",
 * https://developers.google.com/wallet/generic/use-cases/use-callbacks-for-saves-and-deletions),
 * fetched and kept in memory per process, as Tink's `GooglePaymentsPublicKeysManager` does:
 *
 * - the list is JSON `{ keys: [{ keyValue, protocolVersion, keyExpiration }] }`: base64 DER
 *   SubjectPublicKeyInfo (EC P-256), the protocol, and the expiry in ms as a string; only keys of
 *   protocol `ECv2SigningOnly` with an expiry are kept (Tink: `keyExpiration` is required in
 *   every version but ECv1), expired ones are skipped when used;
 * - it is fetched with a timeout ({@link KEYS_TIMEOUT_MS}) and kept for the `max-age` of its
 *   `Cache-Control` (RFC 9111 §5.2.2.1), or {@link DEFAULT_MAX_AGE_MS} without one, and never past
 *   the last expiry of its keys;
 * - when no key verifies a callback, the caller asks for a {@link GoogleCallbackKeys.refresh}
 *   (Google rotated its keys): one fetch at most per {@link MIN_REFETCH_INTERVAL_MS}, so a flood of
 *   badly signed callbacks cannot make the service hammer Google;
 * - when a fetch fails and an older list is at hand, the older list is used (and fetched again
 *   no sooner than {@link MIN_REFETCH_INTERVAL_MS} later).
 *
 * @module wallet/google/callbackKeys
 */
import type { Clock } from '../../clock.ts';
import { ecPublicKeyOf, GOOGLE_CALLBACK_PROTOCOL, type GoogleRootKey } from './callbackSignature.ts';

/** Time allowed for fetching the key list, in ms. */
export const KEYS_TIMEOUT_MS = 5000;
/** How long a list without `Cache-Control: max-age` is kept, in ms (an hour). */
export const DEFAULT_MAX_AGE_MS = 3_600_000;
/** Least time between two fetches made because no key verified a callback, in ms (a minute). */
export const MIN_REFETCH_INTERVAL_MS = 60_000;
/** Largest key list read, in bytes. */
const MAX_BYTES = 256 * 1024;

/** Thrown when the key list cannot be had (no answer, not 200, not the expected JSON) and none is at hand. */
export class GoogleKeysUnavailableError extends Error {
  override name = 'GoogleKeysUnavailableError';
}

/** The root keys of one process. */
export interface GoogleCallbackKeys {
  /** The current list: the cached one while it is fresh, else fetched. @throws GoogleKeysUnavailableError */
  current(): Promise<GoogleRootKey[]>;
  /**
   * Fetches the list again unless it was fetched less than {@link MIN_REFETCH_INTERVAL_MS} ago.
   * @returns The new list, or null when it was not fetched (too soon, or the fetch failed).
   */
  refresh(): Promise<GoogleRootKey[] | null>;
}

/** `max-age` of a `Cache-Control` header, in ms; undefined without one. */
function maxAgeMs(cacheControl: string | null): number | undefined {
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl ?? '');
  return match ? Number(match[1]) * 1000 : undefined;
}

/**
 * Reads Google's key list.
 * @returns The keys of protocol `ECv2SigningOnly` with a readable key and expiry.
 * @throws GoogleKeysUnavailableError when the text is not `{ keys: [...] }`.
 */
export function parseGoogleRootKeys(text: string): GoogleRootKey[] {
  let parsed: { keys?: unknown };
  try {
    parsed = JSON.parse(text) as { keys?: unknown };
  } catch {
    throw new GoogleKeysUnavailableError('The Google key list is not JSON.');
  }
  if (!Array.isArray(parsed?.keys)) throw new GoogleKeysUnavailableError('The Google key list has no "keys" array.');
  return (parsed.keys as Record<string, unknown>[]).flatMap((entry) => {
    if (entry?.protocolVersion !== GOOGLE_CALLBACK_PROTOCOL || typeof entry.keyValue !== 'string') return [];
    const expiresAt = typeof entry.keyExpiration === 'string' && /^\d{1,16}$/.test(entry.keyExpiration) ? Number(entry.keyExpiration) : NaN;
    const key = ecPublicKeyOf(entry.keyValue);
    return key && !Number.isNaN(expiresAt) ? [{ key, expiresAt }] : [];
  });
}

/** Creates the key store of a process for `url`. */
export function createGoogleCallbackKeys(options: { url: string; clock: Clock; timeoutMs?: number }): GoogleCallbackKeys {
  const { url, clock } = options;
  let cached: { keys: GoogleRootKey[]; freshUntil: number } | undefined;
  let lastFetchAt = -Infinity;
  let inFlight: Promise<GoogleRootKey[]> | undefined;

  const fetchKeys = (): Promise<GoogleRootKey[]> => {
    inFlight ??= (async () => {
      lastFetchAt = clock.now().getTime();
      try {
        const response = await fetch(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(options.timeoutMs ?? KEYS_TIMEOUT_MS) });
        if (response.status !== 200) throw new GoogleKeysUnavailableError(`The Google key list answered ${response.status}.`);
        const text = await response.text();
        if (text.length > MAX_BYTES) throw new GoogleKeysUnavailableError('The Google key list is too large.');
        const keys = parseGoogleRootKeys(text);
        const now = clock.now().getTime();
        const lastExpiry = Math.max(now, ...keys.map((k) => k.expiresAt));
        cached = { keys, freshUntil: Math.min(now + (maxAgeMs(response.headers.get('cache-control')) ?? DEFAULT_MAX_AGE_MS), lastExpiry) };
        return keys;
      } catch (error) {
        if (error instanceof GoogleKeysUnavailableError) throw error;
        throw new GoogleKeysUnavailableError(
          `The Google key list could not be fetched: ${(error as Error).name === 'TimeoutError' ? 'no answer in time' : (error as Error).message}.`,
        );
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  return {
    async current() {
      const now = clock.now().getTime();
      // A stale list is kept for a while after a failed fetch rather than fetched on every callback.
      if (cached && (cached.freshUntil > now || now - lastFetchAt < MIN_REFETCH_INTERVAL_MS)) return cached.keys;
      try {
        return await fetchKeys();
      } catch (error) {
        if (cached) return cached.keys;
        throw error;
      }
    },
    async refresh() {
      if (clock.now().getTime() - lastFetchAt < MIN_REFETCH_INTERVAL_MS) return null;
      return fetchKeys().catch(() => null);
    },
  };
}
