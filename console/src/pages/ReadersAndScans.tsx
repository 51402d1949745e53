/** Readers of each entity (listReaders) with the entity's reader configuration (getReaderConfiguration), and the latest scans (listScans). */
import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api.ts';
import { useSession } from '../session.tsx';
import { Badge, Empty, Loading, PageTitle, Pager, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors, SelectField } from '../components/forms.tsx';
import { href } from '../router.ts';

const READER_TYPES: Schemas['ReaderInputType'][] = ['PartnerReader', 'VtapReader', 'PassentryReader', 'ServiceReader'];

/** Adds a reader to an entity (createReader): its id, name, type and password, the flags as chosen. */
function NewReader({ entityId, entityName }: { entityId: string; entityName: string }) {
  const queryClient = useQueryClient();
  const blank = { id: '', name: '', type: 'PartnerReader' as Schemas['ReaderInputType'], password: '', addPointsEnabled: false, redeemEnabled: false };
  const [reader, setReader] = useState(blank);
  const create = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/entities/{entity_id}/readers', { params: { path: { entity_id: entityId } }, body: { reader } })),
    onSuccess: () => {
      setReader(blank);
      queryClient.invalidateQueries({ queryKey: ['readers', entityId] });
    },
  });
  const P = '/reader';
  return (
    <details>
      <summary>Add a reader to {entityName}</summary>
      <form
        aria-label={`Add a reader to ${entityName}`}
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <ErrorScope error={create.error}>
          <FormErrors error={create.error} shown={[`${P}/id`, `${P}/name`, `${P}/type`, `${P}/password`]} />
          <Field
            label="Reader id"
            pointer={`${P}/id`}
            required
            hint="Letters, digits, - and _ (the scanning app signs in with it)."
            value={reader.id}
            onChange={(e) => setReader({ ...reader, id: e.target.value })}
          />
          <Field label="Reader name" pointer={`${P}/name`} required value={reader.name} onChange={(e) => setReader({ ...reader, name: e.target.value })} />
          <SelectField
            label="Reader type"
            pointer={`${P}/type`}
            value={reader.type}
            onChange={(e) => setReader({ ...reader, type: e.target.value as Schemas['ReaderInputType'] })}
          >
            {READER_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </SelectField>
          <Field
            label="Reader password"
            pointer={`${P}/password`}
            type="password"
            autoComplete="new-password"
            required
            hint="At least 8 characters."
            value={reader.password}
            onChange={(e) => setReader({ ...reader, password: e.target.value })}
          />
          <label className="check">
            <input type="checkbox" checked={reader.addPointsEnabled} onChange={(e) => setReader({ ...reader, addPointsEnabled: e.target.checked })} /> May add
            points
          </label>
          <label className="check">
            <input type="checkbox" checked={reader.redeemEnabled} onChange={(e) => setReader({ ...reader, redeemEnabled: e.target.checked })} /> May redeem
            points
          </label>
          <button type="submit" disabled={!reader.id || !reader.name || !reader.password || create.isPending}>
            Add reader
          </button>
          {create.isSuccess && <span role="status"> Added.</span>}
        </ErrorScope>
      </form>
    </details>
  );
}

function EntityReaders({ id, name }: { id: string; name: string }) {
  const [page, setPage] = useState(1);
  const readers = useQuery({
    queryKey: ['readers', id, page],
    placeholderData: keepPreviousData,
    queryFn: () => ok(api.GET('/api/v1/entities/{entity_id}/readers', { params: { path: { entity_id: id }, query: { page, perPage: 25 } } })),
  });
  const config = useQuery({
    queryKey: ['reader-configuration', id],
    queryFn: () => ok(api.GET('/api/v1/entities/{entity_id}/readerConfiguration', { params: { path: { entity_id: id } } })),
  });
  const rows = readers.data?.data ?? [];
  const c = config.data?.data.attributes;
  const { can } = useSession();
  return (
    <section className="card" aria-labelledby={`entity-${id}`}>
      <h2 id={`entity-${id}`}>{name}</h2>
      <FormErrors error={readers.error ?? config.error} />
      {readers.data && rows.length === 0 && (
        <Empty title="No reader yet.">Add one below, or let the scanning app create its reader with the API (createReader, with this entity's id).</Empty>
      )}
      <ul>
        {rows.map((r) => (
          <li key={r.id}>
            <strong>{r.attributes.name}</strong> (<code>{r.id}</code>, {r.attributes.readerType}) — scan {r.attributes.scanEnabled ? 'on' : 'off'}, add points{' '}
            {r.attributes.addPointsEnabled ? 'on' : 'off'}, redeem {r.attributes.redeemEnabled ? 'on' : 'off'}; last seen <Time at={r.attributes.lastSeenAt} />
          </li>
        ))}
      </ul>
      {readers.data && <Pager page={page} totalPages={readers.data.meta.totalPages} onPage={setPage} label={`${name} readers`} />}
      {can('readers:write') && <NewReader entityId={id} entityName={name} />}
      {c && (
        <details>
          <summary>Reader configuration</summary>
          <dl className="values">
            <dt>Apple pass type id</dt>
            <dd>{c.applePassTypeId ?? '—'}</dd>
            <dt>Google collector id</dt>
            <dd>{c.googleCollectorId ?? '—'}</dd>
            <dt>Google key version</dt>
            <dd>{c.googleKeyVersion ?? '—'}</dd>
            <dt>Scan validation</dt>
            <dd>
              <code>{JSON.stringify(c.validationConfiguration)}</code>
            </dd>
          </dl>
        </details>
      )}
    </section>
  );
}

export default function ReadersAndScans() {
  const entities = useQuery({ queryKey: ['entities'], queryFn: () => ok(api.GET('/api/v1/entities', { params: { query: { perPage: 100 } } })) });
  const [page, setPage] = useState(1);
  const scans = useQuery({
    queryKey: ['scans', 'all', page],
    placeholderData: keepPreviousData,
    queryFn: () => ok(api.GET('/api/v1/scans', { params: { query: { page, perPage: 25 } } })),
  });
  const scanRows = scans.data?.data ?? [];
  return (
    <>
      <PageTitle>Readers & scans</PageTitle>
      <FormErrors error={entities.error} />
      {entities.isPending && <Loading what="Loading entities" />}
      {entities.data && entities.data.data.length === 0 && (
        <Empty title="No entity yet.">The operator creates entities (shops, venues) for the account; readers belong to one.</Empty>
      )}
      <div className="two-columns">
        {entities.data?.data.map((e) => (
          <EntityReaders key={e.id} id={e.id} name={e.attributes.name} />
        ))}
      </div>
      <section aria-labelledby="scans-title">
        <h2 id="scans-title">Latest scans</h2>
        <FormErrors error={scans.error} />
        {scans.data && scanRows.length === 0 && <Empty title="No scan yet.">Scans appear when a reader logs or validates one.</Empty>}
        {scanRows.length > 0 && (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Pass</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {scanRows.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <Time at={s.attributes.scannedAt} />
                    </td>
                    <td>
                      <a href={href(`/passes/${s.relationships.pass.data.id}`)}>{s.relationships.pass.data.id.slice(0, 8)}…</a>
                    </td>
                    <td>{s.attributes.scanType}</td>
                    <td>
                      <Badge value={s.attributes.status} />
                    </td>
                    <td>{s.attributes.statusDetail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {scans.data && <Pager page={page} totalPages={scans.data.meta.totalPages} onPage={setPage} label="Scans" />}
      </section>
    </>
  );
}
