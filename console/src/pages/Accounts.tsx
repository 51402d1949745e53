/**
 * Administration: the accounts (listAccounts), a new account (createAccount), and an invitation
 * for an account's owner (createAccountInvitation): the operator does not work in an
 * account; the owner they invite does, and invites the others.
 */
import { type FormEvent, useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api.ts';
import { Empty, Loading, PageTitle, Pager, ShownOnce, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors } from '../components/forms.tsx';
import { href } from '../router.ts';

export default function Accounts() {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const [invited, setInvited] = useState<{ accountName: string; url: string } | null>(null);
  const list = useQuery({
    queryKey: ['accounts', page],
    placeholderData: keepPreviousData,
    queryFn: () => ok(api.GET('/admin/v1/accounts', { params: { query: { page, perPage: 25 } } })),
  });
  const create = useMutation({
    mutationFn: () => ok(api.POST('/admin/v1/accounts', { body: { account: { name } } })),
    onSuccess: (doc) => {
      setName('');
      setCreated(doc.included?.[0]?.attributes.token ?? null);
      queryClient.invalidateQueries({ queryKey: ['accounts'] });
    },
  });
  const invite = useMutation({
    mutationFn: ({ accountId }: { accountId: string; accountName: string }) =>
      ok(api.POST('/admin/v1/accounts/{accountId}/invitations', { params: { path: { accountId } }, body: { invitation: { role: 'owner' } } })),
    onMutate: () => setInvited(null),
    onSuccess: (doc, { accountName }) => setInvited(doc.data.attributes.url ? { accountName, url: doc.data.attributes.url } : null),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const rows = list.data?.data ?? [];
  return (
    <>
      <PageTitle>Accounts</PageTitle>
      <form className="card narrow" onSubmit={submit} aria-labelledby="new-account">
        <h2 id="new-account">New account</h2>
        <ErrorScope error={create.error}>
          <FormErrors error={create.error} shown={['/account/name']} />
          <Field label="Name" pointer="/account/name" required value={name} onChange={(e) => setName(e.target.value)} />
          <button type="submit" disabled={!name || create.isPending}>
            Create account
          </button>
        </ErrorScope>
        {created && <ShownOnce intro="Its first API key — copy it now, it is not shown again:" value={created} copyLabel="Copy key" />}
      </form>
      <FormErrors error={list.error ?? invite.error} />
      {invited && (
        <ShownOnce
          intro={`The owner's invitation to ${invited.accountName} — send the link now, it is not shown again:`}
          value={invited.url}
          copyLabel="Copy link"
        />
      )}
      {list.isPending && <Loading what="Loading accounts" />}
      {list.data && rows.length === 0 && (
        <Empty title="No account yet.">Create the first one above; each account is a tenant with its own passes and keys.</Empty>
      )}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.id}>
                  <td>
                    <a href={href(`/accounts/${a.id}`)}>{a.attributes.name}</a>
                  </td>
                  <td>
                    <Time at={a.attributes.createdAt} />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      disabled={invite.isPending}
                      onClick={() => invite.mutate({ accountId: a.id, accountName: a.attributes.name })}
                    >
                      Invite owner of {a.attributes.name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager page={page} totalPages={list.data.meta.totalPages} onPage={setPage} label="Accounts" />}
    </>
  );
}
