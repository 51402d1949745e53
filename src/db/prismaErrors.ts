/**
 * Recognising Prisma's known request errors where a store turns them into domain errors (the
 * error handler maps the ones left over generically).
 *
 * @module db/prismaErrors
 */

/** True for Prisma's unique constraint violation (code P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'P2002';
}
