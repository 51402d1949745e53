/**
 * Audit events (listAuditEvents, `GET /api/v1/audit-events`) as the console shows them: who did
 * it in plain words (the API key's kind and name, or the administrator), through which channel,
 * the operation, the target (linked to its console page) and what changed, before → after.
 * Shared by the Audit log page and the pass page's History.
 */
import { type InfiniteData, keepPreviousData, useInfiniteQuery, type UseInfiniteQueryResult } from '@tanstack/react-query';
import type { paths } from '../../../generated/api.d.ts';
import { api, ok, type Schemas } from '../api.ts';
import { href } from '../router.ts';
import { Badge, Time } from './common.tsx';

export type AuditEvent = Schemas['AuditEvent'];
type Page = Schemas['AuditEventCollectionDocument'];

/** The filters of listAuditEvents the console sends (its query parameters; empty ones are left out). */
export type AuditFilters = Pick<
  NonNullable<paths['/api/v1/audit-events']['get']['parameters']['query']>,
  'resource' | 'resourceId' | 'actor' | 'operation' | 'since' | 'until'
>;

/** `filters` without empty members, as listAuditEvents' query. */
export function auditQuery(filters: AuditFilters): AuditFilters {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value)) as AuditFilters;
}

/** The `cursor` of a page's `links.next` (an absolute URL), or undefined on the last page. */
function nextCursor(page: Page): string | undefined {
  return page.links.next ? (new URL(page.links.next).searchParams.get('cursor') ?? undefined) : undefined;
}

/** The events of `filters`, newest first, `perPage` a page; `fetchNextPage` follows the cursor. */
export function useAuditEvents(filters: AuditFilters, perPage: number): UseInfiniteQueryResult<InfiniteData<Page, string | undefined>> {
  const query = auditQuery(filters);
  return useInfiniteQuery({
    queryKey: ['audit-events', query, perPage],
    placeholderData: keepPreviousData,
    initialPageParam: undefined as string | undefined,
    getNextPageParam: nextCursor,
    // `format=json`: the JSON:API page (the operation's other representations are the exports' text).
    queryFn: async ({ pageParam }) =>
      (await ok(
        api.GET('/api/v1/audit-events', { params: { query: { ...query, format: 'json', limit: perPage, ...(pageParam && { cursor: pageParam }) } } }),
      )) as Page,
  });
}

const KINDS: Record<string, string> = { secret: 'Secret', restricted: 'Restricted', publishable: 'Publishable' };

/** Who made the request, in words: `Secret API key “Shop till”`, `The administrator`, `Ada Lovelace <ada@example.com>` (a person: name and address), `Person 0194…`. */
export function actorInWords(actor: AuditEvent['attributes']['actor']): string {
  if (actor.type === 'administrator') return 'The administrator';
  if (actor.type === 'person') return actor.name ?? `Person ${actor.id ?? ''}`.trim();
  const kind = actor.kind ? `${KINDS[actor.kind] ?? actor.kind} API key` : 'API key';
  return actor.name ? `${kind} “${actor.name}”` : `${kind} ${actor.id ?? ''}`.trim();
}

const CHANNELS: Record<AuditEvent['attributes']['channel'], string> = {
  api: 'through the API',
  admin: 'through the administration API',
  console: 'in the console',
  mcp: 'through an AI agent (MCP)',
};

/** `updateLoyalty` → `update loyalty`. */
export function operationInWords(operationId: string): string {
  return operationId.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The console page of a target, when it has one (`passes`/`loyalty` → the pass, `pass-templates` → the designer …). */
export function targetHref(resourceType: string, resourceId: string | null): string | undefined {
  if ((resourceType === 'passes' || resourceType === 'loyalty') && resourceId) return href(`/passes/${encodeURIComponent(resourceId)}`);
  if (resourceType === 'pass-templates' && resourceId) return href(`/templates/${encodeURIComponent(resourceId)}`);
  if (resourceType === 'batches') return href('/batches');
  if (resourceType === 'webhook-subscriptions') return href('/webhooks');
  if (resourceType === 'readers' || resourceType === 'entities' || resourceType === 'scans') return href('/readers');
  return undefined;
}

/** A member's value in words: a secret is named, not shown; text as it is; anything else as JSON. */
function valueInWords(value: unknown): string {
  if (value === '[secret]') return '(secret, not shown)';
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return value === '' ? '(empty)' : value;
  return JSON.stringify(value);
}

/** The changed members, each `member: before → after` (`member: set to after` for a creation). */
function Changes({ changes }: { changes: AuditEvent['attributes']['changes'] }) {
  const members = Object.entries(changes);
  if (!members.length) return null;
  return (
    <ul className="changes" aria-label="Changes">
      {members.map(([member, change]) => (
        <li key={member}>
          <code>{member}</code>:{' '}
          {'before' in change ? (
            <>
              <span className="before">{valueInWords(change.before)}</span> → <span className="after">{valueInWords(change.after)}</span>
            </>
          ) : (
            <>
              set to <span className="after">{valueInWords(change.after)}</span>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/** How a list shows its events: `showTarget` is false inside the target's own page; `onActor`, when given, makes the actor a button that filters by it. */
interface ListOptions {
  showTarget?: boolean;
  onActor?: (actorId: string) => void;
}

/** One event: when, who, how, what, on what, and what changed. */
function AuditEventItem({ event, showTarget = true, onActor }: { event: AuditEvent } & ListOptions) {
  const a = event.attributes;
  const link = targetHref(a.resourceType, a.resourceId);
  const target = a.resourceId ? `${a.resourceType} ${a.resourceId}` : a.resourceType;
  return (
    <li className={`audit-event outcome-${a.outcome}`}>
      <p className="audit-head">
        <Time at={a.occurredAt} /> <strong>{operationInWords(a.operationId)}</strong> <code>{a.operationId}</code>
        {a.outcome === 'failure' && (
          <>
            {' '}
            <Badge value="failed" label={`refused, HTTP ${a.status ?? '?'}`} />
          </>
        )}
      </p>
      <p className="audit-who">
        By{' '}
        {onActor && a.actor.id ? (
          <button type="button" className="link-button" onClick={() => onActor(a.actor.id!)}>
            {actorInWords(a.actor)}
            <span className="visually-hidden"> (show only this actor’s events)</span>
          </button>
        ) : (
          actorInWords(a.actor)
        )}{' '}
        {CHANNELS[a.channel] ?? a.channel}
        {showTarget && <> · on {link ? <a href={link}>{target}</a> : <span>{target}</span>}</>}
      </p>
      <Changes changes={a.changes} />
    </li>
  );
}

/** Events newest first, as a list named `label`. */
export function AuditEventList({ events, label, ...options }: { events: AuditEvent[]; label: string } & ListOptions) {
  return (
    <ol className="timeline audit-events" aria-label={label}>
      {events.map((event) => (
        <AuditEventItem key={event.id} event={event} {...options} />
      ))}
    </ol>
  );
}
