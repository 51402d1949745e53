/**
 * Batches: wallet messaging (createWalletMessagingBatch: message, segment by group tag or a list
 * of passes, schedule; send now and cancel), CSV pass creation and update (createPassCreationBatch,
 * createPassUpdateBatch) with a progress bar fed by getBatch's `progress`, and the errors CSV.
 */
import { type FormEvent, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, downloadWithSession, fetchWithSession, ok, type Schemas } from '../api.ts';
import { useSession } from '../session.tsx';
import { Badge, ConfirmButton, Empty, Loading, PageTitle, Pager, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors, SelectField, TextField } from '../components/forms.tsx';
import { useTemplates, processingStatusOf } from './Templates.tsx';

type Batch = Schemas['Batch'];

/** The contract's BatchStatus values, in words. */
const STATUS_WORDS: Record<Batch['attributes']['status'], string> = {
  validating: 'Checking recipients',
  processing: 'Processing',
  scheduled: 'Scheduled',
  sending: 'Sending',
  successful: 'Done',
  completedWithErrors: 'Done, with errors',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The contract's BatchType values, in words. */
const TYPE_WORDS: Record<Batch['type'], string> = {
  walletMessaging: 'Wallet message',
  passCreation: 'Passes created from a CSV file',
  passUpdate: 'Passes updated from a CSV file',
};

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** The reach of a wallet messaging batch: passes addressed and, of those, passes in a wallet (getBatch's walletCount). */
function reach(b: Batch): string | null {
  const { recipientCount, walletCount } = b.attributes;
  if (recipientCount == null) return null;
  const passes = plural(recipientCount, 'pass', 'passes');
  if (walletCount == null) return passes;
  return `${passes}, ${walletCount.toLocaleString()} in a wallet`;
}
const RUNNING = new Set(['validating', 'scheduled', 'sending', 'processing']);

/** Downloads a CSV of the batch (its URL's path) with the session's token. */
const download = (url: string, name: string) => downloadWithSession(new URL(url, window.location.origin).pathname, name);

function Progress({ batch }: { batch: Batch }) {
  const p = batch.attributes.progress;
  if (!p) return null;
  const percent = p.total ? Math.round((p.processed / p.total) * 100) : 100;
  return (
    <div className="progress-line">
      <progress max={p.total || 1} value={p.processed} aria-label={`${batch.attributes.name} progress`} />
      <span>
        {percent} % ({p.processed.toLocaleString()} of {p.total.toLocaleString()})
      </span>
    </div>
  );
}

function CsvUpload({ onCreated }: { onCreated: (id: string) => void }) {
  const templates = useTemplates();
  const processed = (templates.data ?? []).filter((t) => processingStatusOf(t) === 'processed');
  const [kind, setKind] = useState<'create' | 'update'>('create');
  const [file, setFile] = useState<File | null>(null);
  const [template, setTemplate] = useState('');
  const [name, setName] = useState('');
  const [scheduledAt, setScheduledAt] = useState('');
  const upload = useMutation({
    mutationFn: async () => {
      const form = new FormData();
      if (file) form.set('csv', file, file.name);
      if (name) form.set('name', name);
      if (kind === 'create') form.set('passTemplate', template || processed[0]?.id || '');
      else
        form.set(
          'scheduledAt',
          scheduledAt ? new Date(scheduledAt).toISOString().replace(/\.\d{3}Z$/, 'Z') : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        );
      const res = await fetchWithSession(kind === 'create' ? '/api/v1/passes/batch' : '/api/v1/passes/batch/update', { method: 'POST', body: form });
      return (await res.json()) as Schemas['BatchCreatedDocument'];
    },
    onSuccess: (doc) => onCreated(doc.data.id),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    upload.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="csv-title">
      <h2 id="csv-title">Create or update passes from a CSV file</h2>
      <ErrorScope error={upload.error}>
        <FormErrors error={upload.error} shown={['/csv', '/passTemplate', '/name', '/scheduledAt']} />
        <SelectField label="What the file does" value={kind} onChange={(e) => setKind(e.target.value as 'create' | 'update')}>
          <option value="create">Create passes (one per row)</option>
          <option value="update">Update passes (by extId or id)</option>
        </SelectField>
        <Field
          label="CSV file"
          pointer="/csv"
          type="file"
          accept=".csv,text/csv"
          required
          hint="Columns: ext_id, group_tags, passfield_<field id>, … (see the API docs)."
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        />
        {kind === 'create' ? (
          <SelectField label="Template" pointer="/passTemplate" value={template || processed[0]?.id || ''} onChange={(e) => setTemplate(e.target.value)}>
            {processed.map((t) => (
              <option key={t.id} value={t.id}>
                {t.attributes.name}
              </option>
            ))}
          </SelectField>
        ) : (
          <Field
            label="Apply at (empty: now)"
            pointer="/scheduledAt"
            type="datetime-local"
            value={scheduledAt}
            onChange={(e) => setScheduledAt(e.target.value)}
          />
        )}
        <Field label="Batch name (optional)" pointer="/name" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={!file || upload.isPending}>
          {upload.isPending ? 'Uploading…' : 'Upload'}
        </button>
      </ErrorScope>
    </form>
  );
}

function Messaging({ onCreated }: { onCreated: (id: string) => void }) {
  const entities = useQuery({ queryKey: ['entities'], queryFn: () => ok(api.GET('/api/v1/entities', { params: { query: { perPage: 100 } } })) });
  const [form, setForm] = useState({ entity: '', message: '', groupTag: '', passIds: '', scheduledAt: '' });
  const entity = form.entity || entities.data?.data[0]?.id || '';
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/entities/{entity_id}/messaging/wallet', {
          params: { path: { entity_id: entity } },
          body: {
            batch: {
              message: form.message,
              scheduledAt: (form.scheduledAt ? new Date(form.scheduledAt) : new Date(Date.now() + 3_600_000)).toISOString().replace(/\.\d{3}Z$/, 'Z'),
              ...(form.groupTag && { segments: [{ groupTag: form.groupTag }] }),
              ...(form.passIds.trim() && {
                recipients: form.passIds
                  .split(/[\s,]+/)
                  .filter(Boolean)
                  .map((passId) => ({ passId })),
              }),
            },
          },
        }),
      ),
    onSuccess: (doc) => onCreated(doc.data.id),
  });
  if (entities.data && entities.data.data.length === 0) {
    return <Empty title="No entity yet.">Wallet messages are sent per entity; ask the operator to create one for this account.</Empty>;
  }
  const P = '/batch';
  return (
    <form
      className="card"
      aria-labelledby="messaging-title"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h2 id="messaging-title">Wallet message</h2>
      <ErrorScope error={create.error}>
        <FormErrors error={create.error} shown={[`${P}/message`, `${P}/scheduledAt`, `${P}/segments/0/groupTag`]} />
        <SelectField label="Entity" value={entity} onChange={(e) => setForm({ ...form, entity: e.target.value })}>
          {entities.data?.data.map((en) => (
            <option key={en.id} value={en.id}>
              {en.attributes.name}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Message"
          pointer={`${P}/message`}
          rows={2}
          required
          hint="Placeholders are filled per pass: %{points} (its balance) or any field id, such as %{member}."
          value={form.message}
          onChange={(e) => setForm({ ...form, message: e.target.value })}
        />
        <Field
          label="Segment: group tag"
          pointer={`${P}/segments/0/groupTag`}
          value={form.groupTag}
          onChange={(e) => setForm({ ...form, groupTag: e.target.value })}
        />
        <Field
          label="Or recipients: pass ids or extIds"
          pointer={`${P}/recipients`}
          value={form.passIds}
          onChange={(e) => setForm({ ...form, passIds: e.target.value })}
        />
        <Field
          label="Send at (empty: in an hour)"
          pointer={`${P}/scheduledAt`}
          type="datetime-local"
          value={form.scheduledAt}
          onChange={(e) => setForm({ ...form, scheduledAt: e.target.value })}
        />
        <button type="submit" disabled={!form.message || create.isPending}>
          Schedule
        </button>
      </ErrorScope>
    </form>
  );
}

export default function Batches() {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['batches', page],
    placeholderData: keepPreviousData,
    queryFn: () => ok(api.GET('/api/v1/batches', { params: { query: { page, perPage: 10 } } })),
    refetchInterval: (q) => (q.state.data?.data.some((b) => RUNNING.has(b.attributes.status)) ? 500 : false),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['batches'] });
  const act = useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'send-now' | 'cancel' }) =>
      action === 'send-now'
        ? ok(api.POST('/api/v1/batches/{id}/send-now', { params: { path: { id } } }))
        : ok(api.PATCH('/api/v1/batches/{id}/cancel', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const rows = list.data?.data ?? [];
  const { can } = useSession();
  return (
    <>
      <PageTitle>Batches</PageTitle>
      <div className="two-columns">
        {can('batches:write') && can('passes:write') && <CsvUpload onCreated={refresh} />}
        {can('passes:message') && <Messaging onCreated={refresh} />}
      </div>
      <section aria-labelledby="batches-title">
        <h2 id="batches-title">Recent batches</h2>
        <FormErrors error={list.error ?? act.error} />
        {list.isPending && <Loading what="Loading batches" />}
        {list.data && rows.length === 0 && <Empty title="No batch yet.">Upload a CSV or schedule a wallet message above.</Empty>}
        <ul className="cards">
          {rows.map((b) => (
            <li key={b.id} className="card batch" data-batch={b.id}>
              <span className="card-title">{b.attributes.name}</span> <span className="muted">{TYPE_WORDS[b.type]}</span>{' '}
              <Badge value={b.attributes.status} label={STATUS_WORDS[b.attributes.status]} />
              <div className="muted">
                {b.attributes.completedAt ? (
                  <>
                    Finished <Time at={b.attributes.completedAt} />
                  </>
                ) : (
                  <>
                    Scheduled <Time at={b.attributes.scheduledAt} />
                  </>
                )}
                {b.type === 'walletMessaging' && reach(b) && <> · {b.attributes.completedAt ? `Reached: ${reach(b)}` : `Reaches ${reach(b)}`}</>}
              </div>
              {b.attributes.statusDetail && <p className="batch-detail">{b.attributes.statusDetail}</p>}
              <Progress batch={b} />
              <div className="actions">
                {b.attributes.resultsCsvUrl && (b.attributes.progress?.processed ?? 0) > 0 && (
                  <button type="button" className="secondary" onClick={() => download(b.attributes.resultsCsvUrl!, `${b.id}-results.csv`)}>
                    Download the results CSV (holders’ links)
                  </button>
                )}
                {b.attributes.errorsCsvUrl && (
                  <button type="button" className="secondary" onClick={() => download(b.attributes.errorsCsvUrl!, `${b.id}-errors.csv`)}>
                    Download the errors CSV
                  </button>
                )}
                {b.type === 'walletMessaging' && b.attributes.status === 'scheduled' && can('batches:write') && (
                  <>
                    <ConfirmButton
                      label="Send now"
                      question={`Send “${b.attributes.content ?? b.attributes.name}” now to ${
                        b.attributes.recipientCount == null ? 'its passes' : plural(b.attributes.recipientCount, 'pass', 'passes')
                      }? ${
                        b.attributes.walletCount == null
                          ? ''
                          : b.attributes.walletCount === 0
                            ? 'None of them is in a wallet: nobody will see it until they add their pass.'
                            : `${plural(b.attributes.walletCount, 'of them is', 'of them are')} in a wallet and will show it.`
                      }`}
                      onConfirm={() => act.mutate({ id: b.id, action: 'send-now' })}
                    />
                    <ConfirmButton
                      label="Cancel batch"
                      question={`Cancel “${b.attributes.name}”? Nothing will be sent.`}
                      onConfirm={() => act.mutate({ id: b.id, action: 'cancel' })}
                    />
                  </>
                )}
              </div>
            </li>
          ))}
        </ul>
        {list.data && <Pager page={page} totalPages={list.data.meta.totalPages} onPage={setPage} label="Batches" />}
      </section>
    </>
  );
}
