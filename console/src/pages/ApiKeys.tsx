/**
 * The account's API keys, for owners and admins (`keys:manage`): the keys with their kind, scopes
 * and limits (listApiKeys), a key revoked after a question (revokeApiKey), and a new key made
 * (createApiKey) — secret (every scope; offered to owners only), restricted (chosen scopes,
 * optionally an expiry and client address ranges) or publishable (templates it issues passes
 * from, web origins) — shown once, with a copy button. The API's errors appear at the field they name.
 */
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, ok, type Schemas } from '../api.ts';
import { ApiKeyTable } from '../components/ApiKeyTable.tsx';
import { Empty, Loading, PageTitle, Pager, ShownOnce } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors, SelectField, TextField } from '../components/forms.tsx';
import { usePerson } from '../session.tsx';
import { useTemplates } from './Templates.tsx';

type Kind = Schemas['ApiTokenKind'];
type Scope = Schemas['ApiTokenScope'];

/**
 * The scopes offered for a restricted key, each with what it grants (the bearer scheme's table):
 * a record over the contract's `ApiTokenScope`, so that a scope added to the contract fails the
 * console's type-check until it is offered here. In the contract's order.
 */
const SCOPE_HINTS: Record<Scope, string> = {
  'passes:read': 'read passes',
  'passes:write': 'issue and change passes, loyalty',
  'passes:message': 'message holders',
  'templates:read': 'read templates',
  'templates:write': 'change templates',
  'entities:read': 'read entities',
  'readers:read': 'read readers',
  'readers:write': 'change readers',
  'scans:read': 'read scans',
  'scans:write': 'record scans',
  'batches:read': 'read batches',
  'batches:write': 'create and send batches',
  'webhooks:read': 'read webhooks',
  'webhooks:manage': 'change webhooks',
  'stats:read': 'statistics',
  'audit:read': 'audit log',
  'members:read': 'read members',
  'members:write': 'change members',
  'keys:manage': 'manage API keys',
};

const KIND_HINTS: Record<Kind, string> = {
  secret: 'Every scope, for a program you trust with the whole account.',
  restricted: 'Only the scopes you tick; optionally expiring, or only from some addresses.',
  publishable: 'Safe in a web page: issues passes from chosen templates, from chosen web sites.',
};

/** Lines (or commas) of a text area as a list, blanks dropped. */
const listOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

function NewKey() {
  const queryClient = useQueryClient();
  // A secret key may make owners: only an owner makes one (an admin, restricted keys).
  const makesSecretKeys = usePerson().role === 'owner';
  const templates = useTemplates();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('restricted');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expires, setExpires] = useState('');
  const [cidrs, setCidrs] = useState('');
  const [passTemplates, setPassTemplates] = useState<string[]>([]);
  const [origins, setOrigins] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/api-keys', {
          body: {
            apiToken: {
              ...(name.trim() && { name: name.trim() }),
              kind,
              ...(kind === 'restricted' && {
                scopes,
                ...(expires && { expiresAt: new Date(`${expires}T23:59:59`).toISOString() }),
                ...(listOf(cidrs).length && { allowedCidrs: listOf(cidrs) }),
              }),
              ...(kind === 'publishable' && { passTemplates, allowedOrigins: listOf(origins) }),
            },
          },
        }),
      ),
    onSuccess: (doc) => {
      setShown(doc.data.attributes.token ?? null);
      setName('');
      setScopes([]);
      setExpires('');
      setCidrs('');
      setPassTemplates([]);
      setOrigins('');
      queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setShown(null);
    create.mutate();
  };
  const P = '/apiToken';
  // A fieldset has no single input to tie the API's error at the scopes to: it is described by it.
  const scopeError = create.error instanceof ApiError ? create.error.at(`${P}/scopes`) : undefined;
  return (
    <form className="card narrow" onSubmit={submit} aria-labelledby="new-key">
      <h2 id="new-key">Create an API key</h2>
      <ErrorScope error={create.error}>
        <FormErrors
          error={create.error}
          shown={[`${P}/name`, `${P}/kind`, `${P}/scopes`, `${P}/expiresAt`, `${P}/allowedCidrs`, `${P}/passTemplates`, `${P}/allowedOrigins`]}
        />
        <Field
          label="Name"
          pointer={`${P}/name`}
          value={name}
          maxLength={200}
          onChange={(e) => setName(e.target.value)}
          hint="What uses the key, e.g. “Till 2, Kraków”."
        />
        <SelectField label="Kind" pointer={`${P}/kind`} value={kind} onChange={(e) => setKind(e.target.value as Kind)} hint={KIND_HINTS[kind]}>
          <option value="restricted">Restricted</option>
          {makesSecretKeys && <option value="secret">Secret</option>}
          <option value="publishable">Publishable</option>
        </SelectField>
        {kind === 'restricted' && (
          <>
            <fieldset aria-describedby={scopeError ? 'scopes-error' : undefined} aria-invalid={scopeError ? true : undefined}>
              <legend>Scopes</legend>
              {(Object.entries(SCOPE_HINTS) as [Scope, string][]).map(([scope, hint]) => (
                <label key={scope} className="check">
                  <input
                    type="checkbox"
                    checked={scopes.includes(scope)}
                    onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
                  />{' '}
                  <code>{scope}</code> <span className="muted">{hint}</span>
                </label>
              ))}
              {scopeError && (
                <span className="field-error" id="scopes-error">
                  {scopeError}
                </span>
              )}
            </fieldset>
            <Field label="Expires on (optional)" pointer={`${P}/expiresAt`} type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
            <TextField
              label="Only from these addresses (optional)"
              pointer={`${P}/allowedCidrs`}
              rows={2}
              value={cidrs}
              onChange={(e) => setCidrs(e.target.value)}
              hint="Address ranges in CIDR notation, one per line, e.g. 203.0.113.0/24."
            />
          </>
        )}
        {kind === 'publishable' && (
          <>
            <SelectField
              label="Pass templates it issues passes from"
              pointer={`${P}/passTemplates`}
              multiple
              value={passTemplates}
              onChange={(e) => setPassTemplates([...e.target.selectedOptions].map((option) => option.value))}
            >
              {(templates.data ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.attributes.name}
                </option>
              ))}
            </SelectField>
            <TextField
              label="Web sites it is used from"
              pointer={`${P}/allowedOrigins`}
              rows={2}
              value={origins}
              onChange={(e) => setOrigins(e.target.value)}
              hint="Origins, one per line, e.g. https://shop.example."
            />
          </>
        )}
        <button type="submit" disabled={create.isPending}>
          Create API key
        </button>
      </ErrorScope>
      {shown && <ShownOnce intro="The new key — copy it now, it is not shown again:" value={shown} copyLabel="Copy key" />}
    </form>
  );
}

export default function ApiKeys() {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const list = useQuery({ queryKey: ['api-keys', page], queryFn: () => ok(api.GET('/api/v1/api-keys', { params: { query: { page, perPage: 50 } } })) });
  const revoke = useMutation({
    mutationFn: (id: string) => ok(api.POST('/api/v1/api-keys/{id}/revoke', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const keys = list.data?.data ?? [];
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p className="muted">Programs use API keys; people sign in instead. A key is shown once, when it is made.</p>
      <NewKey />
      <section aria-labelledby="keys">
        <h2 id="keys">Keys of this account</h2>
        <FormErrors error={list.error ?? revoke.error} />
        {list.isPending && <Loading what="Loading API keys" />}
        {list.data && keys.length === 0 && <Empty title="No API key." />}
        {keys.length > 0 && <ApiKeyTable keys={keys} canRevoke onRevoke={(id) => revoke.mutate(id)} />}
        {list.data && <Pager page={page} totalPages={list.data.meta.totalPages} onPage={setPage} label="API keys" />}
      </section>
    </>
  );
}
