import { useEffect, useState } from 'preact/hooks';
import {
  WEBHOOK_EVENTS,
  get,
  post,
  send,
  type Delivery,
  type DeliveryStatus,
  type Webhook,
} from '../api';
import { formatDateTime, formatInteger, relativeTime } from '../format';
import { Link, navigate, usePage } from '../router';
import {
  Badge,
  Button,
  ConfirmDialog,
  Card,
  CopyButton,
  EmptyState,
  ErrorNotice,
  Field,
  FieldSet,
  FormNotice,
  Loading,
  Modal,
  PageHeader,
  DataTable,
  SecretOnce,
  useAction,
  useForm,
  useLoad,
  useToast,
  type Tone,
} from '../ui';

const webhookPath = (id: string) => `/api/webhooks/${encodeURIComponent(id)}`;

/** The disabledReason the API records when someone turns a webhook off (PATCH enabled: false). */
const PAUSED_REASON = 'disabled by the user';

function isPaused(webhook: Webhook): boolean {
  return !webhook.enabled && (!webhook.disabledReason || webhook.disabledReason === PAUSED_REASON);
}

/** Active, paused by someone, or disabled by delivery health (410 Gone, failing for days). */
export function webhookState(webhook: Webhook): { label: string; tone: Tone } {
  if (webhook.enabled) return { label: 'Active', tone: 'green' };
  return isPaused(webhook)
    ? { label: 'Paused', tone: 'amber' }
    : { label: 'Disabled', tone: 'red' };
}

const DELIVERY_TONES: Record<DeliveryStatus, Tone> = {
  succeeded: 'green',
  failed: 'red',
  pending: 'blue',
};
const DELIVERY_LABELS: Record<DeliveryStatus, string> = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  pending: 'Retrying',
};

function deliveryLabel(delivery: Delivery): string {
  return delivery.status === 'pending' && delivery.attempts.length === 0
    ? 'Pending'
    : DELIVERY_LABELS[delivery.status];
}

/** The response code of an attempt, or what went wrong before there was one. */
function attemptOutcome(attempt: Delivery['attempts'][number]): string {
  return attempt.statusCode ? String(attempt.statusCode) : attempt.error || 'no answer';
}

function excerpt(text: string, length = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}

/** A Node.js receiver checking the signature, with this webhook's path and id filled in. */
function verificationSnippet(webhook: Webhook, secret: string | undefined): string {
  const path = new URL(webhook.url).pathname;
  const secretLine = secret
    ? `'${secret}'; // shown once: move it to your secret store`
    : 'process.env.SWITCHYARD_WEBHOOK_SECRET; // the whsec_ secret shown at creation or rotation';
  return `// npm install standardwebhooks express
import express from 'express';
import { Webhook } from 'standardwebhooks';

// Webhook ${webhook.id} (${webhook.events.join(', ')})
const secret = ${secretLine}
const verifier = new Webhook(secret);
const app = express();

app.post('${path}', express.raw({ type: 'application/json' }), (req, res) => {
  let event;
  try {
    // Checks webhook-signature over webhook-id, webhook-timestamp (within 5 minutes) and the raw body.
    event = verifier.verify(req.body, req.headers);
  } catch {
    return res.sendStatus(401);
  }
  // webhook-id is the same on every retry and replay: use it to process each event once.
  console.log(req.headers['webhook-id'], event.event, event.test === true ? '(test)' : '');
  res.sendStatus(200);
});`;
}

export function WebhooksPage() {
  const page = usePage();
  const selectedId = page.split('/')[1] ? decodeURIComponent(page.split('/')[1]) : undefined;
  const webhooks = useLoad(() => get<{ webhooks: Webhook[] }>('/api/webhooks'));
  const [toastView, toast] = useToast();
  const [creating, setCreating] = useState(false);
  const [shownSecret, setShownSecret] = useState<{ webhook: Webhook; secret: string }>();
  const [deleting, setDeleting] = useState<Webhook>();
  const [rotating, setRotating] = useState<Webhook>();
  // The secret of a webhook created or rotated in this visit, for the snippet (never stored).
  const [knownSecrets, setKnownSecrets] = useState<Record<string, string>>({});
  const { busy, error, act } = useAction();

  const list = webhooks.data?.webhooks ?? [];
  const selected = list.find((w) => w.id === selectedId);

  const remember = (webhook: Webhook, secret: string) => {
    setKnownSecrets((known) => ({ ...known, [webhook.id]: secret }));
    setShownSecret({ webhook, secret });
  };

  const setEnabled = (webhook: Webhook, enabled: boolean) =>
    act(async () => {
      await send('PATCH', webhookPath(webhook.id), { body: { enabled } });
      toast(enabled ? `Resumed ${webhook.url}` : `Paused ${webhook.url}`);
      webhooks.reload();
    });

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Endpoints this organization's events are sent to, signed with Standard Webhooks headers and retried until they answer 2xx."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Add endpoint
          </Button>
        }
      />
      <ErrorNotice error={webhooks.error ?? error} />
      <Card
        title="Endpoints"
        subtitle={
          webhooks.data
            ? `${list.filter((w) => w.enabled).length} active of ${list.length}`
            : undefined
        }
      >
        {!webhooks.data ? (
          webhooks.loading && <Loading />
        ) : list.length === 0 ? (
          <EmptyState title="No endpoints yet">
            Add an endpoint to receive events such as usage_threshold or invoice_paid.
          </EmptyState>
        ) : (
          <DataTable
            label="Webhook endpoints"
            testId="webhooks-table"
            columns={['Endpoint', 'Events', 'State', 'Created', { label: 'Actions', hidden: true }]}
          >
            {list.map((webhook) => {
              const state = webhookState(webhook);
              return (
                <tr
                  key={webhook.id}
                  data-webhook-id={webhook.id}
                  class={webhook.id === selectedId ? 'selected' : undefined}
                >
                  <td class="wide">
                    <Link
                      page={`webhooks/${encodeURIComponent(webhook.id)}`}
                      aria-label={`Deliveries of ${webhook.url}`}
                      class="strong-link"
                    >
                      {webhook.url}
                    </Link>
                    <div class="small">
                      <code class="secondary">{webhook.id}</code>
                    </div>
                  </td>
                  <td>
                    <div class="tags">
                      {webhook.events.map((event) => (
                        <span class="tag" key={event}>
                          {event}
                        </span>
                      ))}
                    </div>
                  </td>
                  <td>
                    <Badge tone={state.tone}>{state.label}</Badge>
                    {!webhook.enabled && !isPaused(webhook) && (
                      <div class="muted small">{webhook.disabledReason}</div>
                    )}
                  </td>
                  <td>{formatDateTime(webhook.createdAt)}</td>
                  <td class="actions">
                    <Button
                      size="sm"
                      variant="ghost"
                      disabled={busy}
                      onClick={() => setEnabled(webhook, !webhook.enabled)}
                      aria-label={`${webhook.enabled ? 'Pause' : 'Resume'} ${webhook.url}`}
                    >
                      {webhook.enabled ? 'Pause' : 'Resume'}
                    </Button>
                    <Button
                      size="sm"
                      variant="ghost"
                      onClick={() => setRotating(webhook)}
                      aria-label={`Rotate secret of ${webhook.url}`}
                    >
                      Rotate secret
                    </Button>
                    <Button
                      size="sm"
                      variant="ghost"
                      class="danger-text"
                      onClick={() => setDeleting(webhook)}
                      aria-label={`Delete ${webhook.url}`}
                    >
                      Delete
                    </Button>
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </Card>

      {selected ? (
        <>
          <DeliveryLog key={selected.id} webhook={selected} toast={toast} />
          <Card
            title="Verify the signatures"
            subtitle={
              knownSecrets[selected.id]
                ? "This endpoint's secret is filled in: it is not shown again after you leave the page."
                : 'Set SWITCHYARD_WEBHOOK_SECRET to the secret shown when the endpoint was created or its secret rotated.'
            }
            actions={
              <CopyButton
                text={verificationSnippet(selected, knownSecrets[selected.id])}
                label="Copy code"
              />
            }
          >
            <pre class="code-block" tabIndex={0} aria-label="Signature verification code">
              {verificationSnippet(selected, knownSecrets[selected.id])}
            </pre>
            <p class="muted small">
              Signed content: <code>webhook-id.webhook-timestamp.body</code>, HMAC-SHA256 with the
              base64 key after <code>whsec_</code>; during a rotation both signatures are sent.
              Libraries for other languages: standardwebhooks.com.
            </p>
          </Card>
        </>
      ) : (
        list.length > 0 && (
          <p class="muted">Choose an endpoint to see its deliveries, replay them or send a test.</p>
        )
      )}

      <CreateWebhookDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(webhook, secret) => {
          setCreating(false);
          remember(webhook, secret);
          webhooks.reload();
          navigate(`webhooks/${encodeURIComponent(webhook.id)}`);
        }}
      />
      <Modal
        title="Signing secret"
        open={!!shownSecret}
        onClose={() => setShownSecret(undefined)}
        footer={
          <Button variant="primary" onClick={() => setShownSecret(undefined)}>
            Done
          </Button>
        }
      >
        {shownSecret && (
          <SecretOnce label={`Secret of ${shownSecret.webhook.url}`} value={shownSecret.secret} />
        )}
      </Modal>
      <ConfirmDialog
        title="Rotate the signing secret?"
        subject={rotating}
        confirmLabel="Rotate secret"
        tone="primary"
        onClose={() => setRotating(undefined)}
        onConfirm={async (webhook) => {
          const rotated = await post<{
            secret: string;
            previousSecretExpiresAt: string | null;
          }>(`${webhookPath(webhook.id)}/rotate-secret`, {});
          remember(webhook, rotated.secret);
          if (rotated.previousSecretExpiresAt)
            toast(
              `The previous secret signs until ${formatDateTime(rotated.previousSecretExpiresAt)}`,
            );
        }}
      >
        <p>
          A new secret signs every delivery to <code>{rotating?.url}</code> from now on. The
          previous one keeps signing alongside it for an overlap period, so receivers can switch
          over.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        title="Delete this endpoint?"
        subject={deleting}
        confirmLabel="Delete endpoint"
        onClose={() => setDeleting(undefined)}
        onConfirm={async (webhook) => {
          await send('DELETE', webhookPath(webhook.id));
          toast(`Deleted ${webhook.url}`);
          if (webhook.id === selectedId) navigate('webhooks', true);
          webhooks.reload();
        }}
      >
        <p>
          <code>{deleting?.url}</code> stops receiving {deleting?.events.join(', ')} at once.
          Deliveries already scheduled to it are not sent. This cannot be undone.
        </p>
      </ConfirmDialog>
      {toastView}
    </>
  );
}

function CreateWebhookDialog(props: {
  open: boolean;
  onClose: () => void;
  onCreated: (webhook: Webhook, secret: string) => void;
}) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['usage_threshold']);
  const form = useForm(
    async () => {
      const { secret, ...webhook } = await post<Webhook & { secret: string }>('/api/webhooks', {
        url: url.trim(),
        events,
      });
      setUrl('');
      setEvents(['usage_threshold']);
      props.onCreated(webhook, secret);
    },
    {
      fieldOf: (field) =>
        field === '/url'
          ? 'webhook-url'
          : /^\/events?(\/|$)/.test(field)
            ? 'webhook-events'
            : undefined,
      rules: { 'webhook-events': () => (events.length ? '' : 'Choose at least one event.') },
    },
  );
  const close = () => {
    setUrl('');
    setEvents(['usage_threshold']);
    form.reset();
    props.onClose();
  };
  return (
    <Modal
      title="Add a webhook endpoint"
      open={props.open}
      onClose={close}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button variant="primary" type="submit" form="create-webhook" busy={form.busy}>
            Add endpoint
          </Button>
        </>
      }
    >
      <form id="create-webhook" onSubmit={form.onSubmit} noValidate>
        <Field
          id="webhook-url"
          label="Endpoint URL"
          hint="An https URL that answers 2xx."
          error={form.errors['webhook-url']}
        >
          <input
            id="webhook-url"
            type="url"
            required
            value={url}
            placeholder="https://example.com/webhooks/switchyard"
            autoFocus
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </Field>
        <FieldSet id="webhook-events" legend="Events" error={form.errors['webhook-events']}>
          {WEBHOOK_EVENTS.map((name) => (
            <label class="checkbox" key={name}>
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={(e) =>
                  setEvents((chosen) =>
                    e.currentTarget.checked
                      ? [...chosen, name]
                      : chosen.filter((chosenName) => chosenName !== name),
                  )
                }
              />
              <code>{name}</code>
            </label>
          ))}
        </FieldSet>
        <FormNotice form={form} title="The endpoint was not added" />
      </form>
    </Modal>
  );
}

/** The delivery log of one endpoint: filters, every attempt, replays and test events. */
function DeliveryLog(props: { webhook: Webhook; toast: (message: string) => void }) {
  const { webhook, toast } = props;
  const [status, setStatus] = useState('');
  const [event, setEvent] = useState('');
  const [eventId, setEventId] = useState('');
  const [testEvent, setTestEvent] = useState(webhook.events[0] ?? '');
  const [chosen, setChosen] = useState<string[]>([]);
  const [opened, setOpened] = useState<Delivery>();
  const { busy, error, act } = useAction();

  const query = new URLSearchParams({ limit: '50' });
  if (status) query.set('status', status);
  if (event) query.set('event', event);
  if (eventId) query.set('eventId', eventId);
  const deliveries = useLoad(
    () => get<{ deliveries: Delivery[] }>(`${webhookPath(webhook.id)}/deliveries?${query}`),
    [webhook.id, query.toString()],
  );
  const list = deliveries.data?.deliveries ?? [];
  const retrying = list.some((d) => d.status === 'pending');

  // While a delivery is still being attempted, the log follows it.
  useEffect(() => {
    if (!retrying) return;
    const timer = window.setTimeout(deliveries.reload, 1000);
    return () => window.clearTimeout(timer);
  }, [deliveries.data]);

  const replay = (ids: string[]) =>
    act(async () => {
      const result = await post<{
        deliveries: Delivery[];
        failed: Array<{ deliveryId: string; error: { message: string } }>;
      }>(`${webhookPath(webhook.id)}/deliveries/replay`, { deliveryIds: ids });
      setChosen([]);
      const sent = result.deliveries.length;
      toast(
        `Replayed ${sent} ${sent === 1 ? 'delivery' : 'deliveries'}` +
          (result.failed.length
            ? `; ${result.failed.length} not replayed: ${result.failed[0].error.message}`
            : ''),
      );
      deliveries.reload();
    });

  return (
    <Card
      id="deliveries"
      title={`Deliveries to ${webhook.url}`}
      subtitle="Newest first, every attempt with its answer. Retries use the same webhook-id, so receivers can drop duplicates."
    >
      <div class="toolbar">
        <div class="filters" role="group" aria-label="Filter deliveries">
          <label>
            <span>Status</span>
            <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              <option value="">All</option>
              <option value="succeeded">Succeeded</option>
              <option value="failed">Failed</option>
              <option value="pending">Pending or retrying</option>
            </select>
          </label>
          <label>
            <span>Event</span>
            <select value={event} onChange={(e) => setEvent(e.currentTarget.value)}>
              <option value="">All events</option>
              {webhook.events.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>Event id</span>
            <input
              type="search"
              value={eventId}
              placeholder="evt_…"
              onChange={(e) => setEventId(e.currentTarget.value.trim())}
            />
          </label>
        </div>
        <div class="toolbar-actions">
          <label class="inline-select">
            <span class="sr-only">Test event</span>
            <select value={testEvent} onChange={(e) => setTestEvent(e.currentTarget.value)}>
              {webhook.events.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <Button
            busy={busy}
            disabled={!webhook.enabled}
            onClick={() =>
              act(async () => {
                await post<Delivery>(`${webhookPath(webhook.id)}/test`, { event: testEvent });
                toast(`Test ${testEvent} sent`);
                deliveries.reload();
              })
            }
          >
            Send test event
          </Button>
          <Button
            variant="primary"
            busy={busy}
            disabled={chosen.length === 0 || !webhook.enabled}
            onClick={() => replay(chosen)}
          >
            Replay selected{chosen.length ? ` (${chosen.length})` : ''}
          </Button>
        </div>
      </div>
      {!webhook.enabled && (
        <div class="notice notice-info">
          This endpoint is {isPaused(webhook) ? 'paused' : 'disabled'}: resume it to send tests or
          replays.
        </div>
      )}
      <ErrorNotice error={error ?? deliveries.error} />
      {!deliveries.data ? (
        deliveries.loading && <Loading />
      ) : list.length === 0 ? (
        <EmptyState title="No deliveries">
          {status || event || eventId
            ? 'None match these filters.'
            : 'Send a test event to see one arrive.'}
        </EmptyState>
      ) : (
        <DataTable
          label="Deliveries"
          testId="deliveries-table"
          columns={[
            { label: 'Select', hidden: true },
            'Event',
            'Status',
            { label: 'Attempts', num: true },
            'Response',
            { label: 'Latency', num: true },
            'Next retry',
            'Created',
            { label: 'Actions', hidden: true },
          ]}
        >
          {list.map((delivery) => {
            const last = delivery.attempts[delivery.attempts.length - 1];
            return (
              <tr key={delivery.id} data-delivery-id={delivery.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select delivery ${delivery.id}`}
                    checked={chosen.includes(delivery.id)}
                    onChange={(e) =>
                      setChosen((ids) =>
                        e.currentTarget.checked
                          ? [...ids, delivery.id]
                          : ids.filter((id) => id !== delivery.id),
                      )
                    }
                  />
                </td>
                <td>
                  <div>{delivery.event}</div>
                  <button
                    type="button"
                    class="link-btn small mono"
                    title="Show only this event's deliveries"
                    onClick={() => setEventId(delivery.eventId)}
                  >
                    {delivery.eventId}
                  </button>
                </td>
                <td>
                  <Badge tone={DELIVERY_TONES[delivery.status]}>{deliveryLabel(delivery)}</Badge>
                </td>
                <td class="num">{delivery.attempts.length}</td>
                <td class="response">
                  {last ? (
                    <>
                      <code class={last.statusCode >= 200 && last.statusCode < 300 ? 'ok' : 'bad'}>
                        {attemptOutcome(last)}
                      </code>{' '}
                      <span class="muted small" title={last.responseBody}>
                        {excerpt(last.responseBody)}
                      </span>
                    </>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
                <td class="num">{last ? `${formatInteger(last.durationMs)} ms` : '—'}</td>
                <td>{delivery.nextAttemptAt ? relativeTime(delivery.nextAttemptAt) : '—'}</td>
                <td>{formatDateTime(delivery.createdAt)}</td>
                <td class="actions">
                  <Button
                    size="sm"
                    variant="ghost"
                    onClick={() => setOpened(delivery)}
                    aria-label={`Attempts of delivery ${delivery.id}`}
                  >
                    Attempts
                  </Button>
                  <Button
                    size="sm"
                    variant="ghost"
                    disabled={busy || !webhook.enabled}
                    onClick={() => replay([delivery.id])}
                    aria-label={`Replay delivery ${delivery.id}`}
                  >
                    Replay
                  </Button>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      <Modal
        title={`Attempts of ${opened?.event ?? ''}`}
        open={!!opened}
        onClose={() => setOpened(undefined)}
        wide
      >
        {opened && (
          <>
            <p class="muted small">
              Delivery <code>{opened.id}</code> of event <code>{opened.eventId}</code> to{' '}
              <code>{opened.url}</code>
            </p>
            {opened.attempts.length === 0 ? (
              <EmptyState title="Not attempted yet" />
            ) : (
              <DataTable
                label="Attempts"
                compact
                columns={['When', 'Response', { label: 'Latency', num: true }, 'Body (start)']}
              >
                {opened.attempts.map((attempt) => (
                  <tr key={attempt.attemptedAt}>
                    <td>{formatDateTime(attempt.attemptedAt)}</td>
                    <td>
                      <code>{attemptOutcome(attempt)}</code>
                    </td>
                    <td class="num">{formatInteger(attempt.durationMs)} ms</td>
                    <td>
                      <code class="wrap">{excerpt(attempt.responseBody, 300) || '—'}</code>
                    </td>
                  </tr>
                ))}
              </DataTable>
            )}
            {opened.nextAttemptAt && <p>Next attempt {relativeTime(opened.nextAttemptAt)}.</p>}
          </>
        )}
      </Modal>
    </Card>
  );
}
