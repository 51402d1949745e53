/**
 * Administration of one account: its API keys (list, create, revoke), its Apple configurations
 * (certificate, key and WWDR files; the API's validation messages next to each file) and its
 * Google configuration (issuer id and service account key file). Once the API has stored
 * credentials, the forms forget the key files and the passphrase.
 */
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api.ts';
import { Empty, PageTitle, ShownOnce, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors } from '../components/forms.tsx';
import { ApiKeyTable } from '../components/ApiKeyTable.tsx';

const text = (file: File | undefined) => (file ? file.text() : Promise.resolve(undefined));

/**
 * A certificate file as the API takes it, PEM (RFC 7468): a PEM file as it is; a DER file — what
 * Apple's developer account (`pass.cer`) and certificate authority page (`AppleWWDRCAG4.cer`)
 * download — encoded as PEM. DER is told by its start, an ASN.1 SEQUENCE with a long-form length
 * (0x30 0x81–0x84, X.690 §8.1.3.5), which no PEM file has. Anything else is sent as its text, for
 * the API to say what is wrong with it.
 */
async function certificatePem(file: File | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (bytes[0] !== 0x30 || bytes[1] === undefined || bytes[1] < 0x81 || bytes[1] > 0x84) return new TextDecoder().decode(bytes);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `-----BEGIN CERTIFICATE-----\n${btoa(binary).replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}

function Tokens({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  const list = useQuery({
    queryKey: ['tokens', accountId],
    queryFn: () => ok(api.GET('/admin/v1/accounts/{accountId}/tokens', { params: { path: { accountId } } })),
  });
  const create = useMutation({
    mutationFn: () =>
      ok(api.POST('/admin/v1/accounts/{accountId}/tokens', { params: { path: { accountId } }, body: { apiToken: { name: name || undefined } } })),
    onSuccess: (doc) => {
      setShown(doc.data.attributes.token ?? null);
      setName('');
      queryClient.invalidateQueries({ queryKey: ['tokens', accountId] });
    },
  });
  const revoke = useMutation({
    mutationFn: (tokenId: string) => ok(api.POST('/admin/v1/tokens/{tokenId}/revoke', { params: { path: { tokenId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['tokens', accountId] }),
  });
  return (
    <section className="card" aria-labelledby="tokens">
      <h2 id="tokens">API keys</h2>
      <FormErrors error={list.error ?? revoke.error} />
      {list.data?.data.length === 0 && <Empty title="No API key.">Create one below for the account's integration.</Empty>}
      {!!list.data?.data.length && <ApiKeyTable keys={list.data.data} canRevoke onRevoke={(tokenId) => revoke.mutate(tokenId)} />}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <ErrorScope error={create.error}>
          <FormErrors error={create.error} shown={['/apiToken/name']} />
          <Field label="New key's name (optional)" pointer="/apiToken/name" value={name} onChange={(e) => setName(e.target.value)} />
          <button type="submit">Create API key</button>
        </ErrorScope>
      </form>
      {shown && <ShownOnce intro="The new key — copy it now, it is not shown again:" value={shown} copyLabel="Copy key" />}
    </section>
  );
}

function AppleConfiguration({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: ['apple', accountId],
    queryFn: () => ok(api.GET('/admin/v1/accounts/{accountId}/apple-configurations', { params: { path: { accountId } } })),
  });
  const [form, setForm] = useState({ passTypeIdentifier: '', teamIdentifier: '', organizationName: '', privateKeyPassphrase: '' });
  const [files, setFiles] = useState<{ certificate?: File; privateKey?: File; wwdrCertificate?: File }>({});
  // Bumped when the credentials are stored: new (empty) file inputs.
  const [uploads, setUploads] = useState(0);
  const save = useMutation({
    mutationFn: async () =>
      ok(
        api.PUT('/admin/v1/accounts/{accountId}/apple-configurations/{passTypeIdentifier}', {
          params: { path: { accountId, passTypeIdentifier: form.passTypeIdentifier } },
          body: {
            appleConfiguration: {
              teamIdentifier: form.teamIdentifier,
              organizationName: form.organizationName,
              certificate: await certificatePem(files.certificate),
              privateKey: await text(files.privateKey),
              ...(form.privateKeyPassphrase && { privateKeyPassphrase: form.privateKeyPassphrase }),
              wwdrCertificate: (await certificatePem(files.wwdrCertificate)) ?? '',
            },
          },
        }),
      ),
    onSuccess: () => {
      setFiles({});
      setForm((current) => ({ ...current, privateKeyPassphrase: '' }));
      setUploads((n) => n + 1);
      queryClient.invalidateQueries({ queryKey: ['apple', accountId] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const P = '/appleConfiguration';
  return (
    <section className="card" aria-labelledby="apple">
      <h2 id="apple">Apple Wallet</h2>
      {list.data?.data.length === 0 && (
        <Empty title="No Apple configuration.">
          Upload the pass type certificate, its key and Apple's WWDR certificate below. For local testing, <code>npm run admin -- apple dev-certificate</code>{' '}
          makes throw-away ones.
        </Empty>
      )}
      <ul>
        {list.data?.data.map((c) => (
          <li key={c.id}>
            <strong>{c.attributes.passTypeIdentifier}</strong> (team {c.attributes.teamIdentifier}){c.attributes.isDefault && ' · default'} · push{' '}
            {c.attributes.push.status}
            <div className={c.attributes.certificate.expiresSoon ? 'field-error' : 'muted'}>
              Certificate expires <Time at={c.attributes.certificate.notAfter} />
              {c.attributes.certificate.expiresSoon && ' — soon: renew it in the Apple developer account'}
            </div>
            {!c.attributes.wwdrCertificate.isAppleWwdrG4 && (
              <div className="warnings">Development certificate: its passes open in tooling but not on iPhones.</div>
            )}
          </li>
        ))}
      </ul>
      <form onSubmit={submit} aria-label="Set an Apple configuration">
        <ErrorScope error={save.error}>
          <FormErrors
            error={save.error}
            shown={[
              'passTypeIdentifier',
              `${P}/teamIdentifier`,
              `${P}/organizationName`,
              `${P}/certificate`,
              `${P}/privateKey`,
              `${P}/privateKeyPassphrase`,
              `${P}/wwdrCertificate`,
            ]}
          />
          <Field
            label="Pass type identifier"
            pointer="passTypeIdentifier"
            required
            placeholder="pass.com.example.loyalty"
            value={form.passTypeIdentifier}
            onChange={(e) => setForm({ ...form, passTypeIdentifier: e.target.value })}
          />
          <Field
            label="Team identifier"
            pointer={`${P}/teamIdentifier`}
            required
            value={form.teamIdentifier}
            onChange={(e) => setForm({ ...form, teamIdentifier: e.target.value })}
          />
          <Field
            label="Organisation name"
            pointer={`${P}/organizationName`}
            required
            value={form.organizationName}
            onChange={(e) => setForm({ ...form, organizationName: e.target.value })}
          />
          <Field
            key={`certificate-${uploads}`}
            label="Pass type certificate (.cer or PEM)"
            pointer={`${P}/certificate`}
            type="file"
            accept=".cer,.der,.pem,.crt"
            onChange={(e) => setFiles({ ...files, certificate: e.target.files?.[0] })}
          />
          <Field
            key={`privateKey-${uploads}`}
            label="Private key (PEM)"
            pointer={`${P}/privateKey`}
            type="file"
            accept=".pem,.key"
            onChange={(e) => setFiles({ ...files, privateKey: e.target.files?.[0] })}
          />
          <Field
            label="Key passphrase (if any)"
            pointer={`${P}/privateKeyPassphrase`}
            type="password"
            autoComplete="off"
            value={form.privateKeyPassphrase}
            onChange={(e) => setForm({ ...form, privateKeyPassphrase: e.target.value })}
          />
          <Field
            key={`wwdrCertificate-${uploads}`}
            label="Apple WWDR certificate (.cer or PEM)"
            pointer={`${P}/wwdrCertificate`}
            type="file"
            accept=".cer,.der,.pem,.crt"
            onChange={(e) => setFiles({ ...files, wwdrCertificate: e.target.files?.[0] })}
          />
          <button type="submit" disabled={save.isPending || !form.passTypeIdentifier}>
            Save Apple configuration
          </button>
          {save.isSuccess && <span role="status"> Saved.</span>}
        </ErrorScope>
      </form>
    </section>
  );
}

function GoogleConfiguration({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const current = useQuery({
    queryKey: ['google', accountId],
    queryFn: async () => {
      const res = await api.GET('/admin/v1/accounts/{accountId}/google-configuration', { params: { path: { accountId } } });
      return res.response.status === 404 ? null : res.data!;
    },
  });
  const [issuerId, setIssuerId] = useState('');
  const [key, setKey] = useState<File | undefined>();
  const [uploads, setUploads] = useState(0);
  const save = useMutation({
    mutationFn: async () =>
      ok(
        api.PUT('/admin/v1/accounts/{accountId}/google-configuration', {
          params: { path: { accountId } },
          body: { googleConfiguration: { issuerId, serviceAccountKey: (await text(key)) ?? '' } },
        }),
      ),
    onSuccess: () => {
      setKey(undefined);
      setUploads((n) => n + 1);
      queryClient.invalidateQueries({ queryKey: ['google', accountId] });
    },
  });
  const P = '/googleConfiguration';
  return (
    <section className="card" aria-labelledby="google">
      <h2 id="google">Google Wallet</h2>
      {current.data ? (
        <p>
          Issuer {current.data.data.attributes.issuerId}, service account {current.data.data.attributes.clientEmail}
        </p>
      ) : (
        current.data === null && (
          <Empty title="No Google configuration.">Enter the issuer id of the Google Pay & Wallet Console and upload a service account's JSON key.</Empty>
        )
      )}
      <form
        aria-label="Set the Google configuration"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <ErrorScope error={save.error}>
          <FormErrors error={save.error} shown={[`${P}/issuerId`, `${P}/serviceAccountKey`]} />
          <Field label="Issuer id" pointer={`${P}/issuerId`} required inputMode="numeric" value={issuerId} onChange={(e) => setIssuerId(e.target.value)} />
          <Field
            key={`serviceAccountKey-${uploads}`}
            label="Service account key (JSON)"
            pointer={`${P}/serviceAccountKey`}
            type="file"
            accept=".json,application/json"
            onChange={(e) => setKey(e.target.files?.[0])}
          />
          <button type="submit" disabled={save.isPending || !issuerId}>
            Save Google configuration
          </button>
          {save.isSuccess && <span role="status"> Saved.</span>}
        </ErrorScope>
      </form>
    </section>
  );
}

/** The account's entities (listAccountEntities) and a form that creates one (createEntity). */
function Entities({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const list = useQuery({
    queryKey: ['account-entities', accountId],
    queryFn: () => ok(api.GET('/admin/v1/accounts/{accountId}/entities', { params: { path: { accountId }, query: { perPage: 100 } } })),
  });
  const create = useMutation({
    mutationFn: () => ok(api.POST('/admin/v1/accounts/{accountId}/entities', { params: { path: { accountId } }, body: { entity: { name } } })),
    onSuccess: () => {
      setName('');
      queryClient.invalidateQueries({ queryKey: ['account-entities', accountId] });
    },
  });
  return (
    <section className="card" aria-labelledby="entities">
      <h2 id="entities">Entities</h2>
      <FormErrors error={list.error} />
      {list.data?.data.length === 0 && <Empty title="No entity.">Create one per shop or venue: readers and wallet messages belong to one.</Empty>}
      <ul>
        {list.data?.data.map((e) => (
          <li key={e.id}>
            <strong>{e.attributes.name}</strong> <code>{e.id}</code>
          </li>
        ))}
      </ul>
      <form
        aria-label="Create an entity"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <ErrorScope error={create.error}>
          <FormErrors error={create.error} shown={['/entity/name']} />
          <Field label="Entity name" pointer="/entity/name" required value={name} onChange={(e) => setName(e.target.value)} />
          <button type="submit" disabled={!name || create.isPending}>
            Create entity
          </button>
          {create.isSuccess && <span role="status"> Created.</span>}
        </ErrorScope>
      </form>
    </section>
  );
}

export default function AccountPage({ id }: { id: string }) {
  return (
    <>
      <PageTitle>Account</PageTitle>
      <p className="muted">{id}</p>
      <div className="two-columns">
        <Tokens accountId={id} />
        <Entities accountId={id} />
        <AppleConfiguration accountId={id} />
        <GoogleConfiguration accountId={id} />
      </div>
    </>
  );
}
