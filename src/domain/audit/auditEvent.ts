/**
 * Audit events: what one state-changing request did, who did it, and the hash that chains it to
 * the previous event of its account.
 *
 * The hash of an event is SHA-256 over the previous event's hash (32 bytes; 32 zero bytes before
 * the first) followed by the UTF-8 of the event's canonical form: a JSON array of its members in
 * a fixed order, objects with sorted keys (src/domain/audit/auditStore.ts computes it in the
 * database as the event is appended, `npm run admin -- audit verify` recomputes it here). A chain
 * whose every link verifies proves no event was changed, removed or inserted between its anchor
 * and its head (a hash chain, as in RFC 6962's tamper-evident logs,
 * https://www.rfc-editor.org/rfc/rfc6962#section-2.1).
 *
 * The changes of an event are its target's members before → after, read from the database in
 * the request's transaction ({@link changesBetween}); where the target has no stored row to read
 * (src/domain/audit/auditSnapshotStore.ts) or nothing in it changed, the members the request
 * body set ({@link changesOfBody}).
 *
 * Secrets never enter an event: a member whose name says it holds a secret (keys, tokens,
 * secrets, passwords, certificates, private keys, sealed and hashed columns, any name ending in
 * `key`, TOTP codes: `code`, `totpCode`) is named with the value `[secret]`, and so is any string that looks like an API key or a
 * PEM block.
 *
 * @module domain/audit/auditEvent
 */
import { createHash } from 'node:crypto';

/** The chain of events not tied to an account (account creation): the nil UUID. */
export const ADMINISTRATION_CHAIN = '00000000-0000-0000-0000-000000000000';

/** The hash before the first event of a chain. */
export const GENESIS_HASH = Buffer.alloc(32);

/** What replaces a secret's value. */
export const SECRET_PLACEHOLDER = '[secret]';

/** One changed member: its value before (when known) and after. */
export interface AuditChange {
  before?: unknown;
  after?: unknown;
}

/** An event as written (before the database gives it its place in the chain). */
export interface AuditEventInput {
  id: string;
  accountId: string;
  occurredAt: Date;
  actorType: 'api_key' | 'administrator' | 'person';
  actorId: string | null;
  actorName: string | null;
  actorKind: string | null;
  channel: string;
  operationId: string;
  resourceType: string;
  resourceId: string | null;
  changes: Record<string, AuditChange>;
  requestId: string | null;
  clientAddress: string | null;
  userAgent: string | null;
  outcome: 'success' | 'failure';
  status: number | null;
}

/** An event as stored. */
export interface AuditEventRow extends AuditEventInput {
  seq: number;
  prevHash: Buffer;
  hash: Buffer;
}

/** JSON with object keys sorted, so that equal values have one text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
}

/** The canonical text of an event, which its hash covers (not its place `seq` nor the hashes). */
export function canonicalEvent(event: AuditEventInput): string {
  return canonicalJson([
    event.id,
    event.accountId,
    event.occurredAt.toISOString(),
    event.actorType,
    event.actorId,
    event.actorName,
    event.actorKind,
    event.channel,
    event.operationId,
    event.resourceType,
    event.resourceId,
    event.changes,
    event.requestId,
    event.clientAddress,
    event.userAgent,
    event.outcome,
    event.status,
  ]);
}

/** SHA-256 of `prevHash` followed by the event's canonical text. */
export function eventHash(prevHash: Buffer, event: AuditEventInput): Buffer {
  return createHash('sha256').update(prevHash).update(canonicalEvent(event), 'utf8').digest();
}

/**
 * Member names that hold secrets: named in an event, never shown. Beside the request members
 * (`password`, `privateKey`, `certificate` …), the stored columns that hold them: sealed
 * (`…Encrypted`) and hashed (`…Hash`) ones.
 */
const SECRET_NAME = /secret|password|passphrase|token|keys?$|private|certificate|p12|pkcs|credential|authorization|cookie|encrypted|sealed|hash$|totp|^code$/i;
/**
 * Envelopes whose name reads like a secret but which hold a resource's options, each member of
 * which is still judged by its own name: `apiToken`, the body of `createApiToken` and
 * `createApiKey` (a new key's name, kind, scopes and limits; the key itself is made by the service).
 */
const ENVELOPES_OF_OPTIONS = new Set(['apiToken']);
/** Strings that are secrets whatever member holds them: API keys, administration tokens, PEM blocks. */
const API_KEY_VALUE = /wp[sa]_[A-Za-z0-9_-]{20,}|-----BEGIN [A-Z ]+-----/;

/** `value` with every secret replaced by {@link SECRET_PLACEHOLDER} (see the module comment). */
export function withoutSecrets(value: unknown, name = ''): unknown {
  if (name && SECRET_NAME.test(name)) return SECRET_PLACEHOLDER;
  if (typeof value === 'string') return API_KEY_VALUE.test(value) ? SECRET_PLACEHOLDER : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => withoutSecrets(item));
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, member]) => [key, withoutSecrets(member, key)]));
}

/**
 * The changed members a request body asks for, secrets named, not shown: a JSON:API document's
 * `data.attributes` (and `data.relationships`); the members of a PassEntry envelope (a body of one
 * member holding an object, `{ "reader": { … } }`); else the body's own members. A body that is
 * not an object is one member, `body`.
 */
export function changesOfBody(body: unknown): Record<string, AuditChange> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) return { body: { after: withoutSecrets(body) } };
  const data = (body as { data?: unknown }).data;
  const own = Object.entries(body as Record<string, unknown>);
  const [only] = own;
  const members =
    data && typeof data === 'object' && !Array.isArray(data)
      ? { ...((data as { attributes?: object }).attributes ?? {}), ...((data as { relationships?: object }).relationships ?? {}) }
      : own.length === 1 && only && isPlainObject(only[1]) && (!SECRET_NAME.test(only[0]) || ENVELOPES_OF_OPTIONS.has(only[0]))
        ? (only[1] as Record<string, unknown>)
        : (body as Record<string, unknown>);
  return Object.fromEntries(Object.entries(members).map(([key, value]) => [key, { after: withoutSecrets(value, key) }]));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** How deep {@link changesBetween} names the members of changed objects (`content.points`); deeper, an object is one member. */
const DIFF_DEPTH = 3;

/**
 * The members that differ between two snapshots of a target, each as `{ before, after }`
 * (`before` absent when the target was created, `after` absent when it was deleted). A member
 * holding an object on both sides is compared member by member, named with dots
 * (`content.points`, `readerConfiguration.validationType`), down to {@link DIFF_DEPTH} levels; arrays
 * and deeper objects are one value. A secret member (see the module comment) that changed is named
 * with `[secret]` on each side that held a value (null stays null).
 * @param before The target's members before the change, or null when it had no row.
 * @param after Its members after the change, or null when it has no row any more.
 * @returns The changed members; empty when nothing changed.
 */
export function changesBetween(before: Record<string, unknown> | null, after: Record<string, unknown> | null): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  diffInto(changes, '', before, after, before !== null, after !== null, 1);
  return changes;
}

function diffInto(
  changes: Record<string, AuditChange>,
  prefix: string,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  hadBefore: boolean,
  hasAfter: boolean,
  depth: number,
): void {
  const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const name of names) {
    const was = before?.[name];
    const is = after?.[name];
    if (canonicalJson(was) === canonicalJson(is)) continue;
    const path = `${prefix}${name}`;
    if (SECRET_NAME.test(name)) {
      const shown = (value: unknown) => (value === undefined || value === null ? null : SECRET_PLACEHOLDER);
      changes[path] = { ...(hadBefore ? { before: shown(was) } : {}), ...(hasAfter ? { after: shown(is) } : {}) };
    } else if (depth < DIFF_DEPTH && isPlainObject(was) && isPlainObject(is)) {
      diffInto(changes, `${path}.`, was, is, hadBefore, hasAfter, depth + 1);
    } else {
      changes[path] = {
        ...(hadBefore ? { before: withoutSecrets(was ?? null, name) } : {}),
        ...(hasAfter ? { after: withoutSecrets(is ?? null, name) } : {}),
      };
    }
  }
}
