/**
 * The API keys of an account as a table — prefix, name, kind and scopes, created, last used,
 * expiry, state — with a Revoke button (asked in a dialog) on the keys still valid. Shared by the
 * account's own API keys page (listApiKeys, revokeApiKey) and the operator's account page
 * (listApiTokens, revokeApiToken): both answer the same `apiToken` resource objects.
 */
import type { Schemas } from '../api.ts';
import { ConfirmButton, Time } from './common.tsx';

type ApiToken = Schemas['ApiToken'];

const KIND_LABELS: Record<Schemas['ApiTokenKind'], string> = { secret: 'Secret', restricted: 'Restricted', publishable: 'Publishable' };

/** Valid, revoked or expired (by the browser's clock, as the list was fetched). */
function stateOf(key: ApiToken): string {
  if (key.attributes.revokedAt) return 'Revoked';
  if (key.attributes.expiresAt && Date.parse(key.attributes.expiresAt) <= Date.now()) return 'Expired';
  return 'Valid';
}

/** What the key may do, in words: every scope, its scopes, or the templates it issues from. */
function reachOf(key: ApiToken): string {
  const { kind, scopes = [], passTemplates = [], entities = [], allowedCidrs = [] } = key.attributes;
  if (kind === 'secret') return 'every scope';
  if (kind === 'publishable') return `issues passes from ${passTemplates.length} template${passTemplates.length === 1 ? '' : 's'}`;
  const limits = [
    passTemplates.length && `${passTemplates.length} template${passTemplates.length === 1 ? '' : 's'}`,
    entities.length && `${entities.length} entit${entities.length === 1 ? 'y' : 'ies'}`,
    allowedCidrs.length && `from ${allowedCidrs.join(', ')}`,
  ].filter(Boolean);
  return `${scopes.join(', ')}${limits.length ? ` · ${limits.join(' · ')}` : ''}`;
}

export function ApiKeyTable({ keys, onRevoke, canRevoke }: { keys: ApiToken[]; onRevoke: (id: string) => void; canRevoke: boolean }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">May</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">State</th>
            {canRevoke && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => {
            const state = stateOf(key);
            const label = key.attributes.name ?? key.attributes.prefix;
            return (
              <tr key={key.id}>
                <td>
                  <code>{key.attributes.prefix}…</code>
                </td>
                <td>{key.attributes.name ?? <span className="muted">—</span>}</td>
                <td>{KIND_LABELS[key.attributes.kind ?? 'secret']}</td>
                <td>{reachOf(key)}</td>
                <td>
                  <Time at={key.attributes.createdAt} />
                </td>
                <td>{key.attributes.lastUsedAt ? <Time at={key.attributes.lastUsedAt} /> : <span className="muted">never</span>}</td>
                <td>{key.attributes.expiresAt ? <Time at={key.attributes.expiresAt} /> : <span className="muted">never</span>}</td>
                <td>{state}</td>
                {canRevoke && (
                  <td>
                    {state === 'Valid' && (
                      <ConfirmButton
                        label={`Revoke ${label}`}
                        danger
                        question={`Revoke the key ${label}? Programs using it get 401 at their next request.`}
                        confirmLabel="Revoke"
                        onConfirm={() => onRevoke(key.id)}
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
  );
}
