/** The passes table: server-side paging, search by extId prefix or field value (listPasses `search`), filters by status, template and group tag (listPasses). */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api.ts';
import { useSession } from '../session.tsx';
import { Badge, Empty, Loading, PageTitle, Pager, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors, SelectField } from '../components/forms.tsx';
import { href } from '../router.ts';
import { useTemplates } from './Templates.tsx';

type Filters = { search: string; status: '' | Schemas['PassStatus']; passTemplate: string; groupTag: string };
const STATUSES: Schemas['PassStatus'][] = ['issued', 'active', 'removed', 'deactivated', 'nullified'];

export default function Passes() {
  const [filters, setFilters] = useState<Filters>({ search: '', status: '', passTemplate: '', groupTag: '' });
  const [page, setPage] = useState(1);
  const templates = useTemplates();
  const query = useQuery({
    queryKey: ['passes', filters, page],
    placeholderData: keepPreviousData,
    queryFn: () =>
      ok(
        api.GET('/api/v1/passes', {
          params: {
            query: {
              page,
              perPage: 25,
              ...(filters.search.trim() && { search: filters.search.trim().slice(0, 100) }),
              ...(filters.status && { status: filters.status }),
              ...(filters.passTemplate && { passTemplate: filters.passTemplate }),
              ...(filters.groupTag && { groupTag: filters.groupTag }),
            },
          },
        }),
      ),
  });
  const set = (change: Partial<Filters>) => {
    setFilters({ ...filters, ...change });
    setPage(1);
  };
  const rows = query.data?.data ?? [];
  const filtered = Object.values(filters).some(Boolean);
  const canIssue = useSession().can('passes:write');
  return (
    <>
      <PageTitle
        actions={
          canIssue && (
            <a className="button" href={href('/issue')}>
              Issue a pass
            </a>
          )
        }
      >
        Passes
      </PageTitle>
      <search>
        <form className="filters card" aria-label="Filter passes" onSubmit={(e) => e.preventDefault()}>
          <ErrorScope error={query.error}>
            <Field
              label="Search"
              pointer="search"
              type="search"
              hint="The start of an extId, or part of a field value such as a name."
              maxLength={100}
              value={filters.search}
              onChange={(e) => set({ search: e.target.value })}
            />
            <SelectField label="Status" pointer="status" value={filters.status} onChange={(e) => set({ status: e.target.value as Filters['status'] })}>
              <option value="">Any</option>
              {STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </SelectField>
            <SelectField label="Template" pointer="passTemplate" value={filters.passTemplate} onChange={(e) => set({ passTemplate: e.target.value })}>
              <option value="">Any</option>
              {templates.data?.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.attributes.name}
                </option>
              ))}
            </SelectField>
            <Field label="Group tag" pointer="groupTag" value={filters.groupTag} onChange={(e) => set({ groupTag: e.target.value })} />
          </ErrorScope>
        </form>
      </search>
      <FormErrors error={query.error} shown={['search', 'status', 'passTemplate', 'groupTag']} />
      {query.isPending && <Loading what="Loading passes" />}
      {query.data &&
        rows.length === 0 &&
        (filtered ? (
          <Empty title="No pass matches these filters.">Clear a filter, or search for something else.</Empty>
        ) : (
          <Empty title="No pass yet.">
            {canIssue && (
              <>
                <a href={href('/issue')}>Issue a pass</a> from a template, or upload a CSV in <a href={href('/batches')}>Batches</a>.
              </>
            )}
          </Empty>
        ))}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Passes, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Pass</th>
                <th scope="col">Template</th>
                <th scope="col">Status</th>
                <th scope="col">Group tags</th>
                <th scope="col">Issued</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((pass) => (
                <tr key={pass.id}>
                  <td>
                    <a href={href(`/passes/${pass.id}`)}>{pass.attributes.extId ?? pass.id}</a>
                  </td>
                  <td>{pass.attributes.passTemplateName}</td>
                  <td>
                    <Badge value={pass.attributes.status} />
                  </td>
                  <td>{pass.attributes.groupTags.join(', ')}</td>
                  <td>
                    <Time at={pass.attributes.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {query.data && <Pager page={page} totalPages={query.data.meta.totalPages} onPage={setPage} label="Passes" />}
    </>
  );
}
