/**
 * A page of a list as the database reads it: the page asked for and its Prisma window. The HTTP
 * edge reads the page from the query and builds the list envelope around it (src/http/pagination.ts).
 *
 * @module db/pagination
 */

/** A requested page. */
export interface PageRequest {
  /** 1-based page number. */
  page: number;
  /** Page size. */
  perPage: number;
}

/** Prisma `skip`/`take` of a page. */
export function pageWindow({ page, perPage }: PageRequest): { skip: number; take: number } {
  return { skip: (page - 1) * perPage, take: perPage };
}
