/**
 * The people of the account: members with their role and ways of signing in
 * (listMembers), a role changed (updateMember) or a member removed (deleteMember, asked in a
 * dialog: their sessions in this account end at once), invitations made (createInvitation: the
 * link is shown once, with a copy button) and pending ones revoked (listInvitations,
 * revokeInvitation). Without `members:write` the page only lists.
 */
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api.ts';
import { ROLE_HINTS, ROLE_LABELS, ROLES, type Role } from '../roles.ts';
import { usePerson, useSession } from '../session.tsx';
import { ConfirmButton, Empty, Loading, PageTitle, ShownOnce, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors, SelectField } from '../components/forms.tsx';

/** The roles a person of `role` may give: an owner any, an admin any but owner. */
const grantableRoles = (role: Role | null): readonly Role[] => (role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner'));

const METHOD_LABELS: Record<string, string> = { passkey: 'Passkey', password: 'Password' };

function MemberList({ canWrite }: { canWrite: boolean }) {
  const queryClient = useQueryClient();
  const me = usePerson();
  const list = useQuery({ queryKey: ['members'], queryFn: () => ok(api.GET('/api/v1/members')) });
  const change = useMutation({
    mutationFn: ({ id, role }: { id: string; role: Role }) => ok(api.PATCH('/api/v1/members/{id}', { params: { path: { id } }, body: { member: { role } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['members'] }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/api/v1/members/{id}', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['members'] }),
  });
  const rows = list.data?.data ?? [];
  const grantable = grantableRoles(me.role);
  return (
    <section aria-labelledby="members">
      <h2 id="members">Members</h2>
      <FormErrors error={list.error ?? change.error ?? remove.error} />
      {list.isPending && <Loading what="Loading members" />}
      {list.data && rows.length === 0 && <Empty title="No member yet." />}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Signs in with</th>
                <th scope="col">Since</th>
                {canWrite && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {rows.map((m) => {
                const self = m.attributes.personId === me.person.id;
                // Only an owner changes or removes an owner (src/api/people/updateMember.ts).
                const manageable = canWrite && !self && (m.attributes.role !== 'owner' || me.role === 'owner');
                return (
                  <tr key={m.id}>
                    <td>
                      {m.attributes.name}
                      {self && <span className="muted"> (you)</span>}
                    </td>
                    <td>{m.attributes.email}</td>
                    <td>
                      {manageable ? (
                        <select
                          aria-label={`Role of ${m.attributes.name}`}
                          value={m.attributes.role}
                          disabled={change.isPending}
                          onChange={(e) => change.mutate({ id: m.id, role: e.target.value as Role })}
                        >
                          {grantable.map((r) => (
                            <option key={r} value={r}>
                              {ROLE_LABELS[r]}
                            </option>
                          ))}
                        </select>
                      ) : (
                        ROLE_LABELS[m.attributes.role]
                      )}
                    </td>
                    <td>
                      {m.attributes.signInMethods.map((method) => METHOD_LABELS[method] ?? method).join(', ') || '—'}
                      {m.attributes.secondFactor && <span className="muted"> + authenticator app</span>}
                    </td>
                    <td>
                      <Time at={m.attributes.createdAt} />
                    </td>
                    {canWrite && (
                      <td>
                        {manageable && (
                          <ConfirmButton
                            label={`Remove ${m.attributes.name}`}
                            danger
                            question={`Remove ${m.attributes.name} from this account? They are signed out of it at once.`}
                            confirmLabel="Remove"
                            onConfirm={() => remove.mutate(m.id)}
                          />
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Invite() {
  const queryClient = useQueryClient();
  const grantable = grantableRoles(usePerson().role);
  const [role, setRole] = useState<Role>('viewer');
  const [email, setEmail] = useState('');
  const [link, setLink] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/invitations', { body: { invitation: { role, ...(email.trim() && { email: email.trim() }) } } })),
    onSuccess: (doc) => {
      setLink(doc.data.attributes.url ?? null);
      setEmail('');
      queryClient.invalidateQueries({ queryKey: ['invitations'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setLink(null);
    invite.mutate();
  };
  return (
    <form className="card narrow" onSubmit={submit} aria-labelledby="invite">
      <h2 id="invite">Invite someone</h2>
      <ErrorScope error={invite.error}>
        <FormErrors error={invite.error} shown={['/invitation/role', '/invitation/email']} />
        <SelectField label="Role" pointer="/invitation/role" value={role} onChange={(e) => setRole(e.target.value as Role)} hint={ROLE_HINTS[role]}>
          {grantable.map((r) => (
            <option key={r} value={r}>
              {ROLE_LABELS[r]}
            </option>
          ))}
        </SelectField>
        <Field
          label="E-mail address (optional)"
          pointer="/invitation/email"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          hint="Only this address can accept; without one, whoever opens the link gives theirs."
        />
        <button type="submit" disabled={invite.isPending}>
          Create invitation link
        </button>
      </ErrorScope>
      {link && <ShownOnce intro="The invitation link — send it to the person now, it is not shown again:" value={link} copyLabel="Copy link" />}
    </form>
  );
}

function Invitations({ canWrite }: { canWrite: boolean }) {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ['invitations'], queryFn: () => ok(api.GET('/api/v1/invitations')) });
  const revoke = useMutation({
    mutationFn: (id: string) => ok(api.POST('/api/v1/invitations/{id}/revoke', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['invitations'] }),
  });
  const pending = (list.data?.data ?? []).filter((i) => i.attributes.status === 'pending');
  return (
    <section aria-labelledby="invitations">
      <h2 id="invitations">Pending invitations</h2>
      <FormErrors error={list.error ?? revoke.error} />
      {list.data && pending.length === 0 && <p className="muted">No pending invitation.</p>}
      {pending.length > 0 && (
        <ul className="plain">
          {pending.map((i) => (
            <li key={i.id} className="plain-item">
              {ROLE_LABELS[i.attributes.role]} · {i.attributes.email ?? 'any address'} · expires <Time at={i.attributes.expiresAt} />
              {canWrite && (
                <ConfirmButton
                  label={`Revoke invitation${i.attributes.email ? ` for ${i.attributes.email}` : ''}`}
                  question="Revoke this invitation? Its link stops working at once."
                  confirmLabel="Revoke"
                  danger
                  onConfirm={() => revoke.mutate(i.id)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export default function Members() {
  const { can } = useSession();
  const canWrite = can('members:write');
  return (
    <>
      <PageTitle>Members</PageTitle>
      {canWrite && <Invite />}
      <MemberList canWrite={canWrite} />
      <Invitations canWrite={canWrite} />
    </>
  );
}
