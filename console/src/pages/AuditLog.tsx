/**
 * The account's audit log (listAuditEvents): every state-changing request, newest first, filtered
 * by target (resource type and id), actor, operation and time range, 25 a page by cursor ("Load
 * more"), and exported as NDJSON or CSV (`format`, up to 10,000 events per file) with the
 * session's token. The route's query fills the filters (`#/audit?resourceId=<pass id>`, the pass
 * page's link); an event's actor, chosen, fills the actor filter.
 */
import { useState } from 'react';
import { downloadWithSession } from '../api.ts';
import { AuditEventList, type AuditFilters, auditQuery, useAuditEvents } from '../components/AuditEvents.tsx';
import { Empty, Loading, PageTitle } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors, SelectField } from '../components/forms.tsx';
import { useRoute } from '../router.ts';

/** The collections events are filed under (AuditEventAttributes `resourceType`), for the type filter. */
const RESOURCE_TYPES = ['passes', 'loyalty', 'pass-templates', 'batches', 'webhook-subscriptions', 'entities', 'readers', 'scans', 'google-configuration'];
/** Events per page. */
const PER_PAGE = 25;
/** Events per export file: listAuditEvents' most for `format=ndjson` or `csv`. */
const EXPORT_LIMIT = 10_000;

type Form = { resource: string; resourceId: string; actor: string; operation: string; since: string; until: string };

/** The filters typed as text: member (the query parameter), label, hint. */
const TEXT_FILTERS: [keyof Form, string, string][] = [
  ['resourceId', 'Resource id', "A pass's id shows its history."],
  ['actor', 'Actor', "An API key's id, or administrator; or choose an event's actor."],
  ['operation', 'Operation', 'e.g. updateLoyalty'],
];

/** A `datetime-local` value (the browser's time zone) as RFC 3339, or undefined when empty or incomplete. */
function instant(local: string): string | undefined {
  const date = new Date(local);
  return local && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

export default function AuditLog() {
  const { query } = useRoute();
  const [form, setForm] = useState<Form>({
    resource: query.get('resource') ?? '',
    resourceId: query.get('resourceId') ?? '',
    actor: query.get('actor') ?? '',
    operation: query.get('operation') ?? '',
    since: '',
    until: '',
  });
  const filters: AuditFilters = {
    resource: form.resource,
    resourceId: form.resourceId.trim(),
    actor: form.actor.trim(),
    operation: form.operation.trim(),
    since: instant(form.since),
    until: instant(form.until),
  };
  const events = useAuditEvents(filters, PER_PAGE);
  const rows = events.data?.pages.flatMap((page) => page.data) ?? [];
  const filtered = Object.values(auditQuery(filters)).length > 0;
  const set = (change: Partial<Form>) => setForm({ ...form, ...change });
  const [exportError, setExportError] = useState<unknown>(null);
  const exportAs = (format: 'ndjson' | 'csv') => {
    setExportError(null);
    const search = new URLSearchParams({ ...auditQuery(filters), format, limit: String(EXPORT_LIMIT) });
    downloadWithSession(`/api/v1/audit-events?${search}`, `audit-events.${format}`).catch(setExportError);
  };
  return (
    <>
      <PageTitle
        actions={
          <>
            <button type="button" className="secondary" onClick={() => exportAs('ndjson')}>
              Export NDJSON
            </button>
            <button type="button" className="secondary" onClick={() => exportAs('csv')}>
              Export CSV
            </button>
          </>
        }
      >
        Audit log
      </PageTitle>
      <p className="muted">
        Every change made to this account — through the API, the console, an AI agent or the administration — with who made it and what changed. Exports hold
        the newest {EXPORT_LIMIT.toLocaleString()} events of the filters.
      </p>
      <search>
        <form className="filters audit-filters card" aria-label="Filter events" onSubmit={(e) => e.preventDefault()}>
          <ErrorScope error={events.error}>
            <SelectField label="Resource type" pointer="resource" value={form.resource} onChange={(e) => set({ resource: e.target.value })}>
              <option value="">Any</option>
              {RESOURCE_TYPES.map((type) => (
                <option key={type}>{type}</option>
              ))}
            </SelectField>
            {TEXT_FILTERS.map(([member, label, hint]) => (
              <Field key={member} label={label} pointer={member} hint={hint} value={form[member]} onChange={(e) => set({ [member]: e.target.value })} />
            ))}
            <Field label="From" pointer="since" type="datetime-local" value={form.since} onChange={(e) => set({ since: e.target.value })} />
            <Field label="Before" pointer="until" type="datetime-local" value={form.until} onChange={(e) => set({ until: e.target.value })} />
          </ErrorScope>
        </form>
      </search>
      <FormErrors error={events.error ?? exportError} shown={['resource', 'resourceId', 'actor', 'operation', 'since', 'until']} />
      {events.isPending && <Loading what="Loading events" />}
      {events.data &&
        rows.length === 0 &&
        (filtered ? (
          <Empty title="No event matches these filters.">Clear a filter, or widen the time range.</Empty>
        ) : (
          <Empty title="Nothing recorded yet.">Each change to a pass, template, webhook or reader appears here with who made it.</Empty>
        ))}
      {rows.length > 0 && (
        <section className="card" aria-label="Events, newest first">
          <AuditEventList events={rows} label="Audit events, newest first" onActor={(actor) => set({ actor })} />
          {events.hasNextPage && (
            <button type="button" className="secondary" disabled={events.isFetchingNextPage} onClick={() => events.fetchNextPage()}>
              {events.isFetchingNextPage ? 'Loading…' : 'Load more'}
            </button>
          )}
        </section>
      )}
    </>
  );
}
