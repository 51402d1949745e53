/**
 * One pass: preview, values, points (updateLoyalty: add, override, message), a message
 * (updatePass), deactivate/reactivate (updatePass `passAction`) and nullify (nullifyPass) behind
 * a confirmation, devices (listPassRegistrations), the delivery timeline
 * (listPassDeliveryAttempts, listPassWebhookDeliveryAttempts), scans (listScans `pass`), its history
 * (listAuditEvents), the holder link with its QR code and the `.pkpass` download.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { api, ok, type Schemas } from '../api.ts';
import { useSession } from '../session.tsx';
import { Badge, ConfirmButton, Empty, Loading, PageTitle, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors, TextField } from '../components/forms.tsx';
import { Preview } from '../components/Preview.tsx';
import { type AuditEvent, AuditEventList, useAuditEvents } from '../components/AuditEvents.tsx';
import { href } from '../router.ts';

function useRefresh(id: string) {
  const queryClient = useQueryClient();
  return () => {
    for (const key of ['pass', 'loyalty', 'deliveries', 'registrations', 'scans']) queryClient.invalidateQueries({ queryKey: [key, id] });
    queryClient.invalidateQueries({ queryKey: ['passes'] });
    queryClient.invalidateQueries({ queryKey: ['audit-events'] });
  };
}

function PointsForm({ id }: { id: string }) {
  const refresh = useRefresh(id);
  const loyalty = useQuery({ queryKey: ['loyalty', id], queryFn: () => ok(api.GET('/api/v1/loyalty/{id}', { params: { path: { id } } })) });
  const [form, setForm] = useState({ balance: '', overrideBalance: '', message: '' });
  const change = useMutation({
    mutationFn: () =>
      ok(
        api.PATCH('/api/v1/loyalty/{id}', {
          params: { path: { id } },
          body: {
            ...(form.balance !== '' && { balance: Number(form.balance) }),
            ...(form.overrideBalance !== '' && { overrideBalance: Number(form.overrideBalance) }),
            ...(form.message && { message: form.message }),
          },
        }),
      ),
    onSuccess: () => {
      setForm({ balance: '', overrideBalance: '', message: '' });
      refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  return (
    <section className="card" aria-labelledby="points">
      <h2 id="points">Points</h2>
      <p className="big" aria-live="polite">
        {loyalty.data ? `${loyalty.data.meta.loyalty.balance.toLocaleString()} points` : loyalty.isPending ? 'Loading…' : '—'}
      </p>
      <form onSubmit={submit} aria-label="Change points">
        <ErrorScope error={change.error}>
          <FormErrors error={change.error} shown={['/balance', '/overrideBalance', '/message']} />
          <Field
            label="Add (or subtract)"
            pointer="/balance"
            type="number"
            step="1"
            value={form.balance}
            onChange={(e) => setForm({ ...form, balance: e.target.value })}
          />
          <Field
            label="Or set the balance to"
            pointer="/overrideBalance"
            type="number"
            step="1"
            value={form.overrideBalance}
            onChange={(e) => setForm({ ...form, overrideBalance: e.target.value })}
          />
          <Field
            label="Message to the holder (optional)"
            pointer="/message"
            hint={form.message ? charactersLeft(Array.from(form.message).length) : undefined}
            value={form.message}
            onChange={(e) => setForm({ ...form, message: e.target.value })}
          />
          <button type="submit" disabled={change.isPending || (form.balance === '' && form.overrideBalance === '')}>
            Change points
          </button>
          {change.isSuccess && <span role="status"> Points changed.</span>}
        </ErrorScope>
      </form>
    </section>
  );
}

/**
 * PassMessage's limit (openapi/components/schemas/PassMessage.yaml), in characters as the API
 * counts them: JSON Schema's `maxLength` counts code points, so 🎉 is one (two UTF-16 units).
 */
const MESSAGE_MAX_CHARACTERS = 350;

/** "12 characters left" / "1 character too many" for a message of `length` characters. */
function charactersLeft(length: number): string {
  const left = MESSAGE_MAX_CHARACTERS - length;
  const count = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'character' : 'characters'}`;
  return left >= 0 ? `${count(left)} left` : `${count(-left)} too many`;
}

/**
 * A message for the holder (updatePass `message`). No `maxLength` on the text area: it would cut
 * pasted text without a word, and counts UTF-16 units where the API counts characters; the count
 * shows the limit instead and the API refuses a longer message next to the field. The status
 * says what the API said of the delivery (`meta.notifications`).
 */
function MessageForm({ id }: { id: string }) {
  const refresh = useRefresh(id);
  const [message, setMessage] = useState('');
  const send = useMutation({
    mutationFn: () => ok(api.PATCH('/api/v1/passes/{id}', { params: { path: { id } }, body: { message } })),
    onSuccess: () => {
      setMessage('');
      refresh();
    },
  });
  const notifications = send.data?.meta.notifications;
  return (
    <form
      className="card"
      aria-labelledby="message"
      onSubmit={(e) => {
        e.preventDefault();
        send.mutate();
      }}
    >
      <h2 id="message">Send a message</h2>
      <ErrorScope error={send.error}>
        <FormErrors error={send.error} shown={['/message']} />
        <TextField
          label="Message"
          pointer="/message"
          hint={charactersLeft(Array.from(message).length)}
          rows={2}
          value={message}
          onChange={(e) => setMessage(e.target.value)}
        />
        <button type="submit" disabled={!message || send.isPending}>
          Send
        </button>
        {send.isSuccess && notifications && (
          <span role="status">
            {' '}
            {notifications.status === 'queued' ? `Sent. ${notifications.message}` : `Saved, not delivered (${notifications.message}).`}
          </span>
        )}
      </ErrorScope>
    </form>
  );
}

/** The loyalty field (its value is the balance, changed with the points form: updateLoyalty). */
const LOYALTY_FIELD_ID = 'points';

/** The labels of a template's fields by field id (TemplateField `id` → `label`), from every section. */
function useFieldLabels(templateId: string | undefined): Record<string, string> {
  const template = useQuery({
    queryKey: ['template', templateId],
    enabled: templateId !== undefined,
    queryFn: () => ok(api.GET('/api/v1/pass-templates/{id}', { params: { path: { id: templateId! } } })),
  });
  const fields = (template.data?.data.attributes as { fields?: Schemas['PassTemplateFields'] } | undefined)?.fields;
  const labels: Record<string, string> = {};
  for (const area of Object.values(fields ?? {})) {
    for (const field of Object.values((area ?? {}) as Record<string, Schemas['TemplateField'] | null>)) {
      if (field?.id) labels[field.id] = field.label || field.id;
    }
  }
  return labels;
}

/**
 * The pass's field values, each under its template label, editable (updatePass `pass`: only the
 * values changed are sent). The loyalty field is left to the points form.
 */
function FieldsForm({ id, content, labels }: { id: string; content: Record<string, string>; labels: Record<string, string> }) {
  const refresh = useRefresh(id);
  const [values, setValues] = useState(content);
  const key = JSON.stringify(content);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the stored values change
  useEffect(() => setValues(content), [key]);
  const changed = Object.fromEntries(Object.entries(values).filter(([field, value]) => value !== content[field]));
  const save = useMutation({
    mutationFn: () => ok(api.PATCH('/api/v1/passes/{id}', { params: { path: { id } }, body: { pass: changed as Schemas['PassInput'] } })),
    onSuccess: refresh,
  });
  const editable = Object.keys(content).filter((field) => field !== LOYALTY_FIELD_ID);
  if (!editable.length) return null;
  return (
    <form
      className="card"
      aria-labelledby="field-values"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h2 id="field-values">Field values</h2>
      <ErrorScope error={save.error}>
        <FormErrors error={save.error} shown={editable.map((field) => `/pass/${field}`)} />
        {editable.map((field) => (
          <Field
            key={field}
            label={labels[field] ?? field}
            pointer={`/pass/${field}`}
            hint={`Field id: ${field}`}
            value={values[field] ?? ''}
            onChange={(e) => setValues({ ...values, [field]: e.target.value })}
          />
        ))}
        <button type="submit" disabled={!Object.keys(changed).length || save.isPending}>
          Save values
        </button>
        {save.isSuccess && !Object.keys(changed).length && <span role="status"> Saved. The wallets holding the pass are being updated.</span>}
      </ErrorScope>
    </form>
  );
}

type TimelineEntry = { key: string; at: string; what: string; target: string; outcome: string; status: number; reason: string | null; attempt: number };

/** APNs pushes, Google Wallet calls (listPassDeliveryAttempts) and webhook requests (listPassWebhookDeliveryAttempts), newest first. */
function Timeline({ id }: { id: string }) {
  const wallets = useQuery({
    queryKey: ['deliveries', id],
    queryFn: () => ok(api.GET('/api/v1/passes/{id}/delivery-attempts', { params: { path: { id }, query: { perPage: 50 } } })),
    refetchInterval: 2000,
  });
  const webhooks = useQuery({
    queryKey: ['deliveries', id, 'webhooks'],
    queryFn: () => ok(api.GET('/api/v1/passes/{id}/webhook-delivery-attempts', { params: { path: { id }, query: { perPage: 50 } } })),
    refetchInterval: 2000,
  });
  const entries: TimelineEntry[] = [
    ...(wallets.data?.data ?? []).map((a) => ({
      key: `w${a.id}`,
      at: a.attributes.createdAt,
      what: a.attributes.channel === 'apns' ? 'APNs push' : `Google Wallet ${a.attributes.operation}`,
      target: a.attributes.target.slice(0, 16),
      outcome: a.attributes.outcome,
      status: a.attributes.status,
      reason: a.attributes.reason,
      attempt: a.attributes.attempt,
    })),
    ...(webhooks.data?.data ?? []).map((a) => ({
      key: `h${a.id}`,
      at: a.attributes.createdAt,
      what: `Webhook ${a.attributes.webhookType}`,
      target: a.attributes.deliveryId.slice(0, 8),
      outcome: a.attributes.outcome,
      status: a.attributes.status,
      reason: a.attributes.error,
      attempt: a.attributes.attempt,
    })),
  ].sort((x, y) => y.at.localeCompare(x.at));
  const loaded = wallets.data && webhooks.data;
  return (
    <section className="card" aria-labelledby="timeline">
      <h2 id="timeline">Delivery timeline</h2>
      <FormErrors error={wallets.error ?? webhooks.error} />
      {loaded && entries.length === 0 && (
        <Empty title="Nothing delivered yet.">
          Changes are pushed to the devices that added the pass (Apple), to Google Wallet once it is saved there, and to your webhook subscriptions.
        </Empty>
      )}
      {entries.length > 0 && (
        <ol className="timeline">
          {entries.map((e) => (
            <li key={e.key} className={`outcome-${e.outcome}`}>
              <Time at={e.at} /> <strong>{e.what}</strong> to <code>{e.target}</code> — <Badge value={e.outcome} /> HTTP {e.status}
              {e.reason && <> ({e.reason})</>}
              {e.attempt > 1 && <> · attempt {e.attempt}</>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function Devices({ id }: { id: string }) {
  const registrations = useQuery({
    queryKey: ['registrations', id],
    queryFn: () => ok(api.GET('/api/v1/passes/{id}/registrations', { params: { path: { id } } })),
  });
  const rows = registrations.data?.data ?? [];
  return (
    <section className="card" aria-labelledby="devices">
      <h2 id="devices">Devices</h2>
      <FormErrors error={registrations.error} />
      {registrations.data && rows.length === 0 && (
        <Empty title="No device has registered.">Open the holder link on an iPhone and add the pass to Apple Wallet.</Empty>
      )}
      <ul>
        {rows.map((r) => (
          <li key={r.id}>
            iPhone, push token …{r.attributes.pushTokenEnd}, registered <Time at={r.attributes.registeredAt} />
            {r.attributes.lastPush && (
              <>
                {' '}
                · last push <Badge value={r.attributes.lastPush.outcome} />
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Scans({ id }: { id: string }) {
  const scans = useQuery({ queryKey: ['scans', id], queryFn: () => ok(api.GET('/api/v1/scans', { params: { query: { pass: id, perPage: 10 } } })) });
  const rows = scans.data?.data ?? [];
  return (
    <section className="card" aria-labelledby="scans">
      <h2 id="scans">Scans</h2>
      <FormErrors error={scans.error} />
      {scans.data && rows.length === 0 && <Empty title="Not scanned yet.">Scans appear here when a reader logs them.</Empty>}
      <ul>
        {rows.map((s) => (
          <li key={s.id}>
            <Time at={s.attributes.scannedAt} /> <Badge value={s.attributes.status} /> {s.attributes.statusDetail}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** History events per page of each of its two streams. */
const HISTORY_PER_PAGE = 10;

/**
 * Who changed the pass and what (listAuditEvents), newest first. A pass's events are filed under
 * two resource types with its id: `passes` (issue, update, nullify) and `loyalty` (updateLoyalty,
 * whose path is `/api/v1/loyalty/{id}`); each is read by its own cursor (`resource` and
 * `resourceId`, the audit log's index) and the two merged by time. Only events down to the
 * older of the two streams' last loaded events are shown, so none is missing from the list;
 * "Load more" follows both cursors.
 */
function History({ id }: { id: string }) {
  const streams = [
    useAuditEvents({ resource: 'passes', resourceId: id }, HISTORY_PER_PAGE),
    useAuditEvents({ resource: 'loyalty', resourceId: id }, HISTORY_PER_PAGE),
  ];
  const loaded = streams.map((s) => s.data?.pages.flatMap((page) => page.data) ?? []);
  // A stream with more pages is complete only down to its last loaded event.
  const floor = streams
    .map((s, i) => (s.hasNextPage ? loaded[i]!.at(-1)?.attributes.occurredAt : undefined))
    .filter((at): at is string => at !== undefined)
    .sort()
    .at(-1);
  const events = loaded
    .flat()
    .filter((e) => floor === undefined || e.attributes.occurredAt >= floor)
    .sort((x: AuditEvent, y: AuditEvent) => y.attributes.occurredAt.localeCompare(x.attributes.occurredAt) || y.id.localeCompare(x.id));
  const more = streams.some((s) => s.hasNextPage);
  const fetching = streams.some((s) => s.isFetchingNextPage);
  return (
    <section className="card" aria-labelledby="history">
      <h2 id="history">History</h2>
      <FormErrors error={streams[0]!.error ?? streams[1]!.error} />
      {streams.every((s) => s.data) && events.length === 0 && (
        <Empty title="No change recorded yet.">Changes to this pass appear here with who made them.</Empty>
      )}
      {events.length > 0 && <AuditEventList events={events} label="History of the pass, newest first" showTarget={false} />}
      <div className="actions">
        {more && (
          <button
            type="button"
            className="secondary"
            disabled={fetching}
            onClick={() => {
              for (const s of streams) if (s.hasNextPage) s.fetchNextPage();
            }}
          >
            {fetching ? 'Loading…' : 'Load more'}
          </button>
        )}
        <a href={href(`/audit?resourceId=${encodeURIComponent(id)}`)}>Open in the audit log</a>
      </div>
    </section>
  );
}

function HolderLink({ url, id }: { url: string; id: string }) {
  const [qr, setQr] = useState('');
  useEffect(() => {
    QRCode.toDataURL(url, { margin: 1, width: 160 }).then(setQr, () => setQr(''));
  }, [url]);
  return (
    <section className="card" aria-labelledby="holder">
      <h2 id="holder">Holder link</h2>
      <p>
        <a href={url} target="_blank" rel="noreferrer">
          {url}
        </a>
      </p>
      {qr && <img src={qr} alt="QR code of the holder link" width={160} height={160} />}
      <p>
        <a className="button secondary" href={`/passes/${encodeURIComponent(id)}/apple`} download>
          Download .pkpass
        </a>
      </p>
    </section>
  );
}

export default function PassPage({ id }: { id: string }) {
  const refresh = useRefresh(id);
  const pass = useQuery({ queryKey: ['pass', id], queryFn: () => ok(api.GET('/api/v1/passes/{id}', { params: { path: { id } } })) });
  const act = useMutation({
    mutationFn: (action: 'deactivate' | 'reactivate' | 'nullify') =>
      action === 'nullify'
        ? ok(api.POST('/api/v1/passes/{id}/nullify', { params: { path: { id } } }))
        : ok(api.PATCH('/api/v1/passes/{id}', { params: { path: { id } }, body: { passAction: action } })),
    onSuccess: refresh,
  });
  const a = pass.data?.data.attributes;
  const labels = useFieldLabels(a?.passTemplateUuid);
  const { can } = useSession();
  const canWrite = can('passes:write');
  return (
    <>
      <PageTitle>{a ? `Pass ${a.extId ?? id}` : 'Pass'}</PageTitle>
      <FormErrors error={pass.error ?? act.error} />
      {pass.isPending && <Loading what="Loading the pass" />}
      {a && (
        <div className="pass-layout">
          <div className="pass-main">
            <section className="card" aria-labelledby="values">
              <h2 id="values">Values</h2>
              <dl className="values">
                <dt>Status</dt>
                <dd>
                  <Badge value={a.status} />
                </dd>
                <dt>Template</dt>
                <dd>{a.passTemplateName}</dd>
                <dt>Issued</dt>
                <dd>
                  <Time at={a.createdAt} />
                </dd>
                <dt>In a wallet since</dt>
                <dd>
                  <Time at={a.addedAt} /> {a.deviceType && `(${a.deviceType})`}
                </dd>
                <dt>Group tags</dt>
                <dd>{a.groupTags.join(', ') || '—'}</dd>
                <dt>Latest message</dt>
                <dd>{a.latestMessage ?? '—'}</dd>
                {Object.entries(a.passContent).map(([key, value]) => (
                  <div key={key} className="value-row">
                    <dt>{labels[key] ?? key}</dt>
                    <dd>{value}</dd>
                  </div>
                ))}
              </dl>
              {a.status !== 'nullified' && canWrite && (
                <div className="actions">
                  {a.status === 'deactivated' ? (
                    <ConfirmButton label="Reactivate" question="Reactivate this pass? Holders can use it again." onConfirm={() => act.mutate('reactivate')} />
                  ) : (
                    <ConfirmButton
                      label="Deactivate"
                      question="Deactivate this pass? Scans are refused until it is reactivated."
                      onConfirm={() => act.mutate('deactivate')}
                    />
                  )}
                  <ConfirmButton
                    label="Nullify"
                    danger
                    question="Nullify this pass? Its values are erased and it can never be used again. This cannot be undone."
                    onConfirm={() => act.mutate('nullify')}
                  />
                </div>
              )}
            </section>
            {a.status !== 'nullified' && canWrite && <FieldsForm id={id} content={a.passContent as Record<string, string>} labels={labels} />}
            {a.status !== 'nullified' && canWrite && <PointsForm id={id} />}
            {a.status !== 'nullified' && canWrite && <MessageForm id={id} />}
            <Timeline id={id} />
            <Devices id={id} />
            {can('scans:read') && <Scans id={id} />}
            {can('audit:read') && <History id={id} />}
          </div>
          <aside className="pass-side">
            {a.status !== 'nullified' && <Preview source={{ passId: id, version: JSON.stringify([a.passContent, a.latestMessage, a.status, a.barcode]) }} />}
            <HolderLink url={a.downloadUrl} id={id} />
          </aside>
        </div>
      )}
    </>
  );
}
