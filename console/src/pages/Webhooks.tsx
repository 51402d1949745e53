/**
 * Webhook subscriptions: create (the signing secret shown once), enable/disable (update), rotate
 * the secret, send a test event, delete, and each subscription's recent delivery attempts.
 */
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api.ts';
import { useSession } from '../session.tsx';
import { Badge, ConfirmButton, Empty, Loading, PageTitle, ShownOnce, Time } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors } from '../components/forms.tsx';

const EVENTS: Schemas['WebhookEventType'][] = [
  'passCreated',
  'passInstalled',
  'passRemoved',
  'passScanned',
  'passUpdated',
  'batchCompleted',
  'passTemplateProcessed',
];
const P = '/webhookSubscription';

function Secret({ secret }: { secret: string }) {
  return <ShownOnce intro="Signing secret — copy it now, it is not shown again:" value={secret} copyLabel="Copy secret" />;
}

function CreateForm({ onSecret }: { onSecret: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Schemas['WebhookEventType'][]>(['passCreated', 'passUpdated']);
  const create = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/webhook-subscriptions', { body: { webhookSubscription: { url, subscribedEvents: events } } })),
    onSuccess: (doc) => {
      onSecret(doc.data.attributes.secretKey);
      setUrl('');
      queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-webhook">
      <h2 id="new-webhook">New subscription</h2>
      <ErrorScope error={create.error}>
        <FormErrors error={create.error} shown={[`${P}/url`, `${P}/subscribedEvents`]} />
        <Field
          label="Endpoint URL (HTTPS)"
          pointer={`${P}/url`}
          type="url"
          required
          placeholder="https://example.com/webhooks"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((event) => (
            <label key={event} className="check">
              <input
                type="checkbox"
                checked={events.includes(event)}
                onChange={(e) => setEvents(e.target.checked ? [...events, event] : events.filter((x) => x !== event))}
              />{' '}
              {event}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending || !url || events.length === 0}>
          Create subscription
        </button>
      </ErrorScope>
    </form>
  );
}

function Attempts({ id }: { id: string }) {
  const attempts = useQuery({
    queryKey: ['webhook-attempts', id],
    queryFn: () => ok(api.GET('/api/v1/webhook-subscriptions/{id}/delivery-attempts', { params: { path: { id }, query: { perPage: 10 } } })),
  });
  const rows = attempts.data?.data ?? [];
  if (attempts.isPending) return <Loading what="Loading deliveries" />;
  if (rows.length === 0) return <p className="muted">No delivery yet. Send a test event to check the endpoint.</p>;
  return (
    <ol className="timeline">
      {rows.map((a) => (
        <li key={a.id} className={`outcome-${a.attributes.outcome}`}>
          <Time at={a.attributes.createdAt} /> {a.attributes.webhookType} · attempt {a.attributes.attempt} · <Badge value={a.attributes.outcome} /> HTTP{' '}
          {a.attributes.status}
          {a.attributes.error && <> ({a.attributes.error})</>}
        </li>
      ))}
    </ol>
  );
}

function Subscription({ sub, onSecret }: { sub: Schemas['WebhookSubscription']; onSecret: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const id = sub.id;
  const refresh = () => {
    queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    queryClient.invalidateQueries({ queryKey: ['webhook-attempts', id] });
  };
  const act = useMutation({
    mutationFn: async (action: 'toggle' | 'rotate' | 'test' | 'delete') => {
      if (action === 'toggle')
        return ok(
          api.PATCH('/api/v1/webhook-subscriptions/{id}', { params: { path: { id } }, body: { webhookSubscription: { enabled: !sub.attributes.enabled } } }),
        );
      if (action === 'rotate') {
        const doc = await ok(api.PATCH('/api/v1/webhook-subscriptions/{id}/rotate-secret', { params: { path: { id } } }));
        onSecret(doc.data.attributes.secretKey);
        return doc;
      }
      if (action === 'test') return ok(api.POST('/api/v1/webhook-subscriptions/{id}/test-event', { params: { path: { id } } }));
      return ok(api.DELETE('/api/v1/webhook-subscriptions/{id}', { params: { path: { id } } }));
    },
    onSuccess: refresh,
  });
  const a = sub.attributes;
  const canManage = useSession().can('webhooks:manage');
  return (
    <li className="card">
      <span className="card-title">{a.url}</span> <Badge value={a.enabled ? 'enabled' : 'disabled'} />
      <div className="muted">
        {a.subscribedEvents.join(', ')} · {a.consecutiveFailures} failures in a row{a.disabledReason && ` · ${a.disabledReason}`}
      </div>
      <FormErrors error={act.error} />
      {canManage && (
        <div className="actions">
          <button type="button" className="secondary" onClick={() => act.mutate('toggle')}>
            {a.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" className="secondary" onClick={() => act.mutate('test')}>
            Send a test event
          </button>
          <ConfirmButton
            label="Rotate secret"
            question="Rotate the signing secret? Deliveries are signed with the new one at once."
            onConfirm={() => act.mutate('rotate')}
          />
          <ConfirmButton
            label="Delete"
            danger
            question={`Delete the subscription to ${a.url}? Its pending deliveries are dropped.`}
            onConfirm={() => act.mutate('delete')}
          />
        </div>
      )}
      <details>
        <summary>Recent deliveries</summary>
        <Attempts id={id} />
      </details>
    </li>
  );
}

export default function Webhooks() {
  const [secret, setSecret] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['webhooks'], queryFn: () => ok(api.GET('/api/v1/webhook-subscriptions', { params: { query: { perPage: 100 } } })) });
  const rows = list.data?.data ?? [];
  const { can } = useSession();
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      {secret && <Secret secret={secret} />}
      {can('webhooks:manage') && <CreateForm onSecret={setSecret} />}
      <section aria-labelledby="subscriptions">
        <h2 id="subscriptions">Subscriptions</h2>
        <FormErrors error={list.error} />
        {list.isPending && <Loading what="Loading subscriptions" />}
        {list.data && rows.length === 0 && <Empty title="No subscription yet.">Create one above to receive pass events at your HTTPS endpoint.</Empty>}
        <ul className="cards">
          {rows.map((sub) => (
            <Subscription key={sub.id} sub={sub} onSecret={setSecret} />
          ))}
        </ul>
      </section>
    </>
  );
}
