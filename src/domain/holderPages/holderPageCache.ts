/**
 * Rendered holder pages, kept in memory (lru-cache, https://isaacs.github.io/node-lru-cache/) so
 * that a page, its barcode SVG and its "Save to Google Wallet" link are made once per pass
 * version, template version, language and platform, then served as they are. A key names
 * everything the page is made of that the request reads anyway (the pass's and template's
 * `updatedAt`, the processed design version), so a changed pass or template gets a new page at
 * once. What the key cannot see (an account's Apple or Google credentials added or removed, the
 * badge directory) shows within {@link PAGE_TTL_MS}.
 *
 * @module domain/holderPages/holderPageCache
 */
import { LRUCache } from 'lru-cache';
import type { RenderedPage } from './holderPageHtml.ts';

/** How long a rendered page is served, in milliseconds: the delay before credential changes show. */
export const PAGE_TTL_MS = 5 * 60_000;
/** Total size of the pages kept, in UTF-16 code units of their HTML (about 2 bytes each: ~64 MB). */
const MAX_SIZE = 32 * 1024 * 1024;

const pages = new LRUCache<string, RenderedPage>({ maxSize: MAX_SIZE, sizeCalculation: (page) => page.html.length || 1, ttl: PAGE_TTL_MS });

/** What a holder page is rendered from, as a cache key. */
export interface HolderPageKey {
  baseUrl: string;
  passId: string;
  passUpdatedAt: Date;
  templateUpdatedAt: Date;
  /** The processed design version shown (null: none yet). */
  designVersion: number | null;
  pageLanguage: string;
  cardLanguage: string;
  /** The primary platform (`apple`, `google`, `other`), and whether it was forced by the URL (`/google`). */
  platform: string;
}

const keyOf = (key: HolderPageKey) =>
  [
    key.baseUrl,
    key.passId,
    key.passUpdatedAt.getTime(),
    key.templateUpdatedAt.getTime(),
    key.designVersion ?? '-',
    key.pageLanguage,
    key.cardLanguage,
    key.platform,
  ].join('|');

/** What a page needs of a template's latest processed version, by template and `updatedAt`. */
const designs = new LRUCache<string, object>({ max: 1000, ttl: PAGE_TTL_MS });

/**
 * The cached view of a template's latest processed version (its design, parsed once), or what
 * `load` reads, kept while the template's `updatedAt` is unchanged (processing a version updates it).
 * @param load Reads it; its errors are not cached.
 */
export async function cachedTemplateView<T extends object>(templateId: string, updatedAt: Date, load: () => Promise<T>): Promise<T> {
  const id = `${templateId}|${updatedAt.getTime()}`;
  const hit = designs.get(id) as T | undefined;
  if (hit) return hit;
  const view = await load();
  designs.set(id, view);
  return view;
}

/**
 * The cached page of a key, or the page `render` makes, kept for the next request.
 * @param render Renders the page (database reads and signing included); its errors are not cached.
 */
export async function cachedHolderPage(key: HolderPageKey, render: () => Promise<RenderedPage>): Promise<RenderedPage> {
  const id = keyOf(key);
  const hit = pages.get(id);
  if (hit) return hit;
  const page = await render();
  pages.set(id, page);
  return page;
}
