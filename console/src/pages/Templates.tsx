/**
 * The pass templates of the account (listPassTemplates), with their processing status and errors:
 * the current ones, or the archived ones (`archived=true`); each can be duplicated
 * (duplicatePassTemplate), archived or unarchived (archivePassTemplate, unarchivePassTemplate).
 */
import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api.ts';
import { useSession } from '../session.tsx';
import { Badge, Empty, Loading, PageTitle, Pager, Time } from '../components/common.tsx';
import { FormErrors } from '../components/forms.tsx';
import { href } from '../router.ts';

type Template = Schemas['PassTemplate'];

/** `processing`, `failed` or `processed` (a processed template's attributes carry no processingStatus). */
export function processingStatusOf(template: Template): 'processing' | 'failed' | 'processed' {
  const status = (template.attributes as { processingStatus?: 'processing' | 'failed' }).processingStatus;
  return status ?? 'processed';
}

/** The first 100 templates, for pickers. */
export function useTemplates() {
  return useQuery({
    queryKey: ['templates', 'all'],
    queryFn: async () => (await ok(api.GET('/api/v1/pass-templates', { params: { query: { perPage: 100 } } }))).data,
  });
}

/** Duplicate, and Archive or Unarchive, of one template; what was done is announced in `onDone`. */
function TemplateActions({ template, onDone }: { template: Template; onDone: (message: string) => void }) {
  const queryClient = useQueryClient();
  const archived = !!template.meta?.archivedAt;
  const path = { params: { path: { id: template.id } } };
  const act = useMutation({
    mutationFn: async (action: 'duplicate' | 'archive' | 'unarchive') => {
      if (action === 'duplicate') {
        const copy = await ok(api.POST('/api/v1/pass-templates/{id}/duplicate', path));
        return `Copied as “${copy.attributes.name}”.`;
      }
      if (action === 'archive') await ok(api.POST('/api/v1/pass-templates/{id}/archive', path));
      else await ok(api.POST('/api/v1/pass-templates/{id}/unarchive', path));
      return `“${template.attributes.name}” ${action === 'archive' ? 'archived: no new passes from it; its passes keep working' : 'is current again'}.`;
    },
    onSuccess: (message) => {
      onDone(message);
      queryClient.invalidateQueries({ queryKey: ['templates'] });
    },
  });
  const name = template.attributes.name;
  return (
    <div className="row-actions">
      <button type="button" className="secondary" disabled={act.isPending} onClick={() => act.mutate('duplicate')} aria-label={`Duplicate ${name}`}>
        Duplicate
      </button>
      <button
        type="button"
        className="secondary"
        disabled={act.isPending}
        onClick={() => act.mutate(archived ? 'unarchive' : 'archive')}
        aria-label={`${archived ? 'Unarchive' : 'Archive'} ${name}`}
      >
        {archived ? 'Unarchive' : 'Archive'}
      </button>
      <FormErrors error={act.error} />
    </div>
  );
}

export default function Templates() {
  const [page, setPage] = useState(1);
  const [archived, setArchived] = useState(false);
  const [done, setDone] = useState('');
  const query = useQuery({
    queryKey: ['templates', archived, page],
    placeholderData: keepPreviousData,
    queryFn: () => ok(api.GET('/api/v1/pass-templates', { params: { query: { page, perPage: 25, archived } } })),
    refetchInterval: (q) => (q.state.data?.data.some((t) => processingStatusOf(t) === 'processing') ? 1000 : false),
  });
  const rows = query.data?.data ?? [];
  const canWrite = useSession().can('templates:write');
  const show = (which: boolean) => {
    setArchived(which);
    setPage(1);
  };
  return (
    <>
      <PageTitle
        actions={
          canWrite && (
            <a className="button" href={href('/templates/new')}>
              New template
            </a>
          )
        }
      >
        Templates
      </PageTitle>
      <fieldset className="segmented">
        <legend className="visually-hidden">Which templates</legend>
        <button type="button" aria-pressed={!archived} onClick={() => show(false)}>
          Current
        </button>
        <button type="button" aria-pressed={archived} onClick={() => show(true)}>
          Archived
        </button>
      </fieldset>
      <p role="status" className="muted">
        {done}
      </p>
      <FormErrors error={query.error} />
      {query.isPending && <Loading what="Loading templates" />}
      {query.data && rows.length === 0 && !archived && (
        <Empty title="No template yet.">
          <a href={href('/templates/new')}>Design your first template</a>: colours, images, fields and barcode, with a live preview.
        </Empty>
      )}
      {query.data && rows.length === 0 && archived && <Empty title="No archived template." />}
      {rows.length > 0 && (
        <ul className="cards">
          {rows.map((t) => {
            const status = processingStatusOf(t);
            return (
              <li key={t.id} className="card">
                <a href={href(`/templates/${t.id}`)} className="card-title">
                  {t.attributes.name}
                </a>
                <span className="muted"> {t.attributes.templateType}</span> <Badge value={status} />
                {t.meta?.archivedAt && (
                  <span className="muted">
                    {' '}
                    archived <Time at={t.meta.archivedAt} />
                  </span>
                )}
                {status === 'failed' && (
                  <ul className="field-error">
                    {(t.attributes as Schemas['FailedPassTemplateAttributes']).processingErrors.map((e) => (
                      <li key={e.pointer + e.code}>
                        <code>{e.pointer}</code>: {e.detail}
                      </li>
                    ))}
                  </ul>
                )}
                {canWrite && <TemplateActions template={t} onDone={setDone} />}
              </li>
            );
          })}
        </ul>
      )}
      {query.data && <Pager page={page} totalPages={query.data.meta.totalPages} onPage={setPage} label="Templates" />}
    </>
  );
}
