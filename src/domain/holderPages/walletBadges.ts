/**
 * The official "Add to Apple Wallet" and "Add to Google Wallet" badges, when the operator has put
 * them in `HOLDER_PAGE_BADGES_DIR`. Apple's and Google's brand rules forbid drawing one's own
 * (https://developer.apple.com/wallet/add-to-apple-wallet-guidelines/,
 * https://developers.google.com/wallet/generic/resources/brand-guidelines), so without them the
 * holder page shows plain labelled buttons. Read once per process and inlined as `data:` URLs
 * (the page loads nothing else).
 *
 * @module domain/holderPages/walletBadges
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The badge files looked for, first found wins. */
export const BADGE_FILES = {
  apple: ['add-to-apple-wallet.svg', 'add-to-apple-wallet.png'],
  google: ['add-to-google-wallet.svg', 'add-to-google-wallet.png'],
} as const;

/** The badges found, as `data:` URLs (null: none). */
export interface WalletBadges {
  apple: string | null;
  google: string | null;
}

/** Largest badge file read (official badges are a few KB). */
const MAX_BADGE_BYTES = 256 * 1024;
const loaded = new Map<string, Promise<WalletBadges>>();

async function firstBadge(dir: string, names: readonly string[]): Promise<string | null> {
  for (const name of names) {
    const bytes = await readFile(join(dir, name)).catch(() => null);
    if (bytes && bytes.byteLength <= MAX_BADGE_BYTES) {
      return `data:${name.endsWith('.svg') ? 'image/svg+xml' : 'image/png'};base64,${bytes.toString('base64')}`;
    }
  }
  return null;
}

/**
 * The badges of a directory, read on first use and kept (restart the service after changing them).
 * @param dir `HOLDER_PAGE_BADGES_DIR`, or null for none.
 */
export function walletBadges(dir: string | null): Promise<WalletBadges> {
  if (!dir) return Promise.resolve({ apple: null, google: null });
  let badges = loaded.get(dir);
  if (!badges) {
    badges = Promise.all([firstBadge(dir, BADGE_FILES.apple), firstBadge(dir, BADGE_FILES.google)]).then(([apple, google]) => ({ apple, google }));
    loaded.set(dir, badges);
  }
  return badges;
}
