/**
 * The pass id of a holder page link as it arrives, after e-mail and chat apps had their way with
 * it: they glue the sentence's punctuation to a bare URL (`…/passes/<uuid>.`), wrap it in
 * parentheses or angle brackets (`<…>`, RFC 3986 Appendix C), or break it with spaces. A UUID
 * (RFC 9562 §4, canonically lowercase) never contains whitespace nor ends in punctuation, so
 * taking those off cannot turn one pass's link into another's.
 *
 * @module domain/holderPages/holderPassLink
 */

/** Characters taken off the end of a link's id: what a sentence or a wrapper adds. */
const TRAILING = /[.,)>\]'"]+$/;
const WHITESPACE = /\s+/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a link's id turned out to be. */
export type HolderPassLink =
  /** The canonical UUID, as sent: serve the page. */
  | { kind: 'canonical'; id: string }
  /** A UUID once repaired: redirect to the canonical URL. */
  | { kind: 'repaired'; id: string }
  /** Not a UUID at all. */
  | { kind: 'malformed' };

/**
 * Reads a link's id (the path segment, percent-decoded).
 * @param raw The `id` path parameter as Express decoded it.
 */
export function readHolderPassLink(raw: string): HolderPassLink {
  if (UUID.test(raw)) return { kind: 'canonical', id: raw };
  const repaired = raw.replace(WHITESPACE, '').replace(TRAILING, '').toLowerCase();
  return UUID.test(repaired) ? { kind: 'repaired', id: repaired } : { kind: 'malformed' };
}
