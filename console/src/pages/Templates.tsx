/** The pass templates of the account (listPassTemplates), with their processing status and errors. */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api.ts';
import { Badge, Empty, Loading, PageTitle, Pager } from '../components/common.tsx';
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

export default function Templates() {
  const [page, setPage] = useState(1);
  const query = useQuery({
    queryKey: ['templates', page],
    placeholderData: keepPreviousData,
    queryFn: () => ok(api.GET('/api/v1/pass-templates', { params: { query: { page, perPage: 25 } } })),
    refetchInterval: (q) => (q.state.data?.data.some((t) => processingStatusOf(t) === 'processing') ? 1000 : false),
  });
  const rows = query.data?.data ?? [];
  return (
    <>
      <PageTitle
        actions={
          <a className="button" href={href('/templates/new')}>
            New template
          </a>
        }
      >
        Templates
      </PageTitle>
      <FormErrors error={query.error} />
      {query.isPending && <Loading what="Loading templates" />}
      {query.data && rows.length === 0 && (
        <Empty title="No template yet.">
          <a href={href('/templates/new')}>Design your first template</a>: colours, images, fields and barcode, with a live preview.
        </Empty>
      )}
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
                {status === 'failed' && (
                  <ul className="field-error">
                    {(t.attributes as Schemas['FailedPassTemplateAttributes']).processingErrors.map((e) => (
                      <li key={e.pointer + e.code}>
                        <code>{e.pointer}</code>: {e.detail}
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {query.data && <Pager page={page} totalPages={query.data.meta.totalPages} onPage={setPage} label="Templates" />}
    </>
  );
}
