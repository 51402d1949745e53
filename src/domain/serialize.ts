/**
 * Small serialisation helpers shared by every resource serializer.
 *
 * @module domain/serialize
 */

/**
 * Formats a time as ISO 8601 UTC with whole seconds and a `Z` (the API's timestamp format).
 * @example toTimestamp(new Date('2026-11-21T09:30:00.123Z')) === '2026-11-21T09:30:00Z'
 */
export function toTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** {@link toTimestamp}, passing null through. */
export function toNullableTimestamp(date: Date | null): string | null {
  return date ? toTimestamp(date) : null;
}
