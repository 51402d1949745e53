/**
 * What PostgreSQL text can hold. Two kinds of JavaScript string cannot be stored:
 *
 * - the NUL character U+0000: "The character with the code zero cannot be stored" in text
 *   (PostgreSQL documentation, Character Types), nor, escaped as `\u0000`, in `jsonb` (JSON Types:
 *   "jsonb will reject \u0000"); a `json` column keeps the escape but anything that reads it back
 *   as text fails;
 * - unpaired UTF-16 surrogates (U+D800–U+DFFF alone): they have no UTF-8 encoding (RFC 3629 §3),
 *   so the server, whose encoding is UTF8, refuses them (`jsonb` refuses the `\ud800` escape).
 *
 * {@link unstorableIn} finds the first such string anywhere in a JSON value, member names
 * included, and says where it is as a JSON Pointer (RFC 6901), so that the HTTP edge refuses the
 * request naming the member and the batch sender refuses one rendered message, instead of the
 * database failing the whole statement.
 *
 * @module db/storableText
 */

/** Why a string cannot be stored: `U+0000` or `an unpaired surrogate U+D800`. */
export type UnstorableReason = string;

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored in PostgreSQL text, or undefined when it can. */
export function unstorableReason(text: string): UnstorableReason | undefined {
  if (text.includes('\u0000')) return 'the NUL character U+0000';
  const lone = LONE_SURROGATE.exec(text);
  return lone ? `an unpaired surrogate U+${lone[0].charCodeAt(0).toString(16).toUpperCase()}` : undefined;
}

/** A string that cannot be stored, found in a JSON value. */
export interface UnstorableText {
  /**
   * JSON Pointer (RFC 6901) of the string: of the member or element whose value it is (`''` for
   * the value itself), or, when a member's name is at fault, of the object holding that member
   * (the name cannot be written out faithfully).
   */
  pointer: string;
  /** True when a member's name is at fault, not a value. */
  inName: boolean;
  reason: UnstorableReason;
}

/** Escapes a member name as a JSON Pointer reference token (RFC 6901 §3). */
function token(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The first string in `value` (a parsed JSON value: objects, arrays, strings, numbers, booleans,
 * null) that PostgreSQL text cannot hold, depth first in document order; undefined when there is
 * none. Member names are checked as well as values. Recursive: one stack frame per level, so a
 * request body reaches it only after src/http/jsonDepth.ts has bounded its depth.
 */
export function unstorableIn(value: unknown, pointer = ''): UnstorableText | undefined {
  if (typeof value === 'string') {
    const reason = unstorableReason(value);
    return reason ? { pointer, inName: false, reason } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableIn(value[i], `${pointer}/${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [name, member] of Object.entries(value)) {
      const nameReason = unstorableReason(name);
      if (nameReason) return { pointer, inName: true, reason: nameReason };
      const found = unstorableIn(member, `${pointer}/${token(name)}`);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * `text` with every character PostgreSQL text cannot hold replaced by U+FFFD (the replacement
 * character), for messages that quote outside text (a database error) and must themselves be
 * stored.
 */
export function storableCopy(text: string): string {
  return text.replace(new RegExp(`${LONE_SURROGATE.source}|\\u0000`, 'g'), '\uFFFD');
}
