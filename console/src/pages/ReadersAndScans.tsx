/** Readers of each entity (listReaders) with the entity's reader configuration (getReaderConfiguration), and the latest scans (listScans). */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ok } from '../api.ts';
import { Badge, Empty, Loading, PageTitle, Pager, Time } from '../components/common.tsx';
import { FormErrors } from '../components/forms.tsx';
import { href } from '../router.ts';

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
  return (
    <section className="card" aria-labelledby={`entity-${id}`}>
      <h2 id={`entity-${id}`}>{name}</h2>
      <FormErrors error={readers.error ?? config.error} />
      {readers.data && rows.length === 0 && (
        <Empty title="No reader yet.">The scanning app creates its reader with the API (createReader, with this entity's id); it then appears here.</Empty>
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
