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
 * Secrets never enter an event: a member whose name says it holds a secret (keys, tokens,
 * secrets, passwords, certificates, private keys, any name ending in `key`) is named with the
 * value `[secret]`, and so is any string that looks like an API key or a PEM block.
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

/** Member names that hold secrets: named in an event, never shown. */
const SECRET_NAME = /secret|password|passphrase|token|keys?$|private|certificate|p12|pkcs|credential|authorization|cookie/i;
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
      : own.length === 1 && only && isPlainObject(only[1]) && !SECRET_NAME.test(only[0])
        ? (only[1] as Record<string, unknown>)
        : (body as Record<string, unknown>);
  return Object.fromEntries(Object.entries(members).map(([key, value]) => [key, { after: withoutSecrets(value, key) }]));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
