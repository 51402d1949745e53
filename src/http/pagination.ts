/**
 * Offset pagination with PassEntry's list envelope (PassEntry API reference: pagination): `meta { totalCount, resultsPerPage,
 * currentPage, totalPages }` and absolute `links { first, prev, next, last }` that keep the
 * request's other query parameters.
 *
 * @module http/pagination
 */
import type { PageRequest } from '../db/pagination.ts';
import { ValidationError } from '../errors.ts';

/** The envelope members of a list (PassEntry API reference: pagination). */
export interface PageEnvelope {
  meta: { totalCount: number; resultsPerPage: number; currentPage: number; totalPages: number };
  links: { first: string | null; prev: string | null; next: string | null; last: string | null };
}

/**
 * Reads `page` and `perPage` from validated query parameters.
 * @param query The validated query (the validator enforced the ranges of numbers, but coerces a
 *   text such as `1e400` to Infinity, which passes its integer check).
 * @param defaultPerPage The operation's default page size (PassEntry API reference: limits: 10 for templates, 25 elsewhere).
 * @throws ValidationError naming the parameter when it is not a whole number (Infinity).
 */
export function pageRequest(query: { page?: number; perPage?: number }, defaultPerPage: number): PageRequest {
  for (const name of ['page', 'perPage'] as const) {
    const value = query[name];
    if (value !== undefined && !Number.isSafeInteger(value)) {
      throw new ValidationError({ detail: `${name} must be a whole number within its documented range.`, source: { parameter: name } });
    }
  }
  return { page: query.page ?? 1, perPage: query.perPage ?? defaultPerPage };
}

/**
 * Builds `meta` and `links` for a page.
 * @param request The page asked for.
 * @param totalCount Records matching the query on all pages.
 * @param baseUrl Absolute base, e.g. `http://127.0.0.1:3000`.
 * @param url The request's path and query (e.g. `req.originalUrl`); `page`/`perPage` are replaced.
 */
export function pageEnvelope(request: PageRequest, totalCount: number, baseUrl: string, url: string): PageEnvelope {
  const totalPages = Math.ceil(totalCount / request.perPage);
  const parsed = new URL(url, 'http://placeholder');
  const link = (page: number): string => {
    const query = new URLSearchParams(parsed.searchParams);
    query.set('page', String(page));
    query.set('perPage', String(request.perPage));
    return `${baseUrl}${parsed.pathname}?${query.toString()}`;
  };
  const lastPage = Math.max(totalPages, 1);
  return {
    meta: { totalCount, resultsPerPage: request.perPage, currentPage: request.page, totalPages },
    links: {
      first: link(1),
      prev: request.page > 1 ? link(Math.min(request.page - 1, lastPage)) : null,
      next: request.page < totalPages ? link(request.page + 1) : null,
      last: link(lastPage),
    },
  };
}
