/**
 * Readers and scans: a reader by id (getReader; the API lists no readers of an entity), each
 * entity's reader configuration (getReaderConfiguration), and the latest scans (listScans).
 */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ok } from '../api.ts';
import { Badge, Empty, Loading, PageTitle, Pager, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors } from '../components/forms.tsx';
import { href } from '../router.ts';

/** A reader looked up by its id (getReader): the API has no list of an entity's readers. */
function ReaderLookup() {
  const [id, setId] = useState('');
  const [wanted, setWanted] = useState('');
  const reader = useQuery({
    queryKey: ['reader', wanted],
    enabled: Boolean(wanted),
    queryFn: () => ok(api.GET('/api/v1/readers/{id}', { params: { path: { id: wanted } } })),
  });
  const r = reader.data?.data;
  return (
    <form
      className="card"
      aria-labelledby="reader-lookup"
      onSubmit={(e) => {
        e.preventDefault();
        setWanted(id.trim());
      }}
    >
      <h2 id="reader-lookup">Find a reader</h2>
      <ErrorScope error={reader.error}>
        <FormErrors error={reader.error} shown={['id']} />
        <Field
          label="Reader id"
          pointer="id"
          value={id}
          onChange={(e) => setId(e.target.value)}
          hint="The id the scanning app chose when it created the reader."
        />
        <button type="submit" disabled={!id.trim()}>
          Show reader
        </button>
      </ErrorScope>
      {r && (
        <dl className="values">
          <dt>Name</dt>
          <dd>{r.attributes.name}</dd>
          <dt>Type</dt>
          <dd>{r.attributes.readerType}</dd>
          <dt>Scan / add points / redeem</dt>
          <dd>{[r.attributes.scanEnabled, r.attributes.addPointsEnabled, r.attributes.redeemEnabled].map((on) => (on ? 'on' : 'off')).join(' / ')}</dd>
          <dt>Last seen</dt>
          <dd>
            <Time at={r.attributes.lastSeenAt} />
          </dd>
        </dl>
      )}
    </form>
  );
}

function EntityConfiguration({ id, name }: { id: string; name: string }) {
  const config = useQuery({
    queryKey: ['reader-configuration', id],
    queryFn: () => ok(api.GET('/api/v1/entities/{entity_id}/readerConfiguration', { params: { path: { entity_id: id } } })),
  });
  const c = config.data?.data.attributes;
  return (
    <section className="card" aria-labelledby={`entity-${id}`}>
      <h2 id={`entity-${id}`}>{name}: reader configuration</h2>
      <FormErrors error={config.error} />
      {c && (
        <dl className="values">
          <dt>Apple pass type id</dt>
          <dd>{c.applePassTypeId ?? '—'}</dd>
          <dt>Google collector id</dt>
          <dd>{c.googleCollectorId ?? '—'}</dd>
          <dt>Google key version</dt>
          <dd>{c.googleKeyVersion ?? '—'}</dd>
        </dl>
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
        <ReaderLookup />
        {entities.data?.data.map((e) => (
          <EntityConfiguration key={e.id} id={e.id} name={e.attributes.name} />
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
