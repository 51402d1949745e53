/**
 * Issues one pass from a processed template (createPass): extId, a value per template field,
 * group tags and NFC, with an `Idempotency-Key` so a double submit issues one pass.
 */
import { type FormEvent, useMemo, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api.ts';
import { useSession } from '../session.tsx';
import { Empty, Loading, PageTitle } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors, SelectField } from '../components/forms.tsx';
import { href, navigate } from '../router.ts';
import { processingStatusOf, useTemplates } from './Templates.tsx';

type TemplateField = Schemas['TemplateField'];

/** The field slots of a template that have an id, in section order. */
function fieldsOf(attributes: Schemas['PassTemplateAttributes'] | undefined): TemplateField[] {
  const out: TemplateField[] = [];
  for (const section of ['header', 'central', 'details', 'back'] as const) {
    for (const f of Object.values((attributes?.fields?.[section] ?? {}) as Record<string, TemplateField | null>)) if (f?.id) out.push(f);
  }
  return out;
}

export default function IssuePass() {
  const session = useSession();
  const templates = useTemplates();
  const processed = (templates.data ?? []).filter((t) => processingStatusOf(t) === 'processed');
  const [templateId, setTemplateId] = useState('');
  const chosen = templateId || processed[0]?.id || '';
  const template = useQuery({
    queryKey: ['template', chosen],
    enabled: Boolean(chosen),
    queryFn: () => ok(api.GET('/api/v1/pass-templates/{id}', { params: { path: { id: chosen } } })),
  });
  const fields = useMemo(() => fieldsOf(template.data?.data.attributes as Schemas['PassTemplateAttributes'] | undefined), [template.data]);
  const [extId, setExtId] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [groupTags, setGroupTags] = useState('');
  const [nfc, setNfc] = useState(false);
  const [key] = useState(() => crypto.randomUUID());
  const issue = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/passes', {
          params: { query: { passTemplate: chosen, ...(extId && { extId }) }, header: { 'Idempotency-Key': key } },
          body: {
            pass: { ...Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')), ...(nfc && { nfc: { enabled: true, source: 'uuid' } }) },
            ...(groupTags.trim() && {
              groupTags: groupTags
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean),
            }),
          },
        }),
      ),
    onSuccess: (doc) => navigate(`/passes/${doc.data.id}`),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    issue.mutate();
  };
  if (templates.isPending) return <Loading what="Loading templates" />;
  const { can } = session;
  return (
    <>
      <PageTitle>Issue a pass</PageTitle>
      {processed.length === 0 ? (
        <Empty title="No processed template yet.">
          {can('templates:write') ? <a href={href('/templates/new')}>Design a template</a> : 'Someone who designs templates makes one'} first; once processed,
          you can issue passes from it here.
        </Empty>
      ) : (
        <form className="card narrow" onSubmit={submit}>
          <ErrorScope error={issue.error}>
            <FormErrors error={issue.error} shown={['passTemplate', 'extId', ...fields.map((f) => `/pass/${f.id}`), '/groupTags']} />
            <SelectField label="Template" pointer="passTemplate" value={chosen} onChange={(e) => setTemplateId(e.target.value)}>
              {processed.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.attributes.name}
                </option>
              ))}
            </SelectField>
            <Field label="extId (your own id, optional)" pointer="extId" value={extId} onChange={(e) => setExtId(e.target.value)} />
            {fields.map((f) => (
              <Field
                key={f.id}
                label={f.label ? `${f.label} (${f.id})` : f.id!}
                pointer={`/pass/${f.id}`}
                placeholder={f.defaultValue ?? ''}
                value={values[f.id!] ?? ''}
                onChange={(e) => setValues({ ...values, [f.id!]: e.target.value })}
              />
            ))}
            <Field label="Group tags (comma-separated)" pointer="/groupTags" value={groupTags} onChange={(e) => setGroupTags(e.target.value)} />
            <label className="check">
              <input type="checkbox" checked={nfc} onChange={(e) => setNfc(e.target.checked)} /> NFC (the pass's UUID as its NFC message)
            </label>
            <button type="submit" disabled={issue.isPending || !chosen}>
              {issue.isPending ? 'Issuing…' : 'Issue pass'}
            </button>
          </ErrorScope>
        </form>
      )}
    </>
  );
}
