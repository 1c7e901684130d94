import { useEffect, useRef, useState } from 'preact/hooks';
import {
  WEBHOOK_EVENTS,
  api,
  get,
  post,
  send,
  type Delivery,
  type DeliveryState,
  type Webhook,
  type WebhookStats,
} from '../api';
import {
  formatDateTime,
  formatInteger,
  formatPercent,
  isoFromLocal,
  localInputOf,
  relativeTime,
} from '../format';
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
  jsonObjectRule,
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

/** Active (or failing since its first failed attempt), paused by someone, or disabled by delivery health (410 Gone, failing for days). */
export function webhookState(webhook: Webhook): { label: string; tone: Tone } {
  if (webhook.enabled && webhook.failingSince) return { label: 'Failing', tone: 'amber' };
  if (webhook.enabled) return { label: 'Active', tone: 'green' };
  return isPaused(webhook)
    ? { label: 'Paused', tone: 'amber' }
    : { label: 'Disabled', tone: 'red' };
}

export const DELIVERY_TONES: Record<DeliveryState, Tone> = {
  pending: 'blue',
  failing: 'amber',
  succeeded: 'green',
  failed: 'red',
  cancelled: 'gray',
};
export const DELIVERY_LABELS: Record<DeliveryState, string> = {
  pending: 'Pending',
  failing: 'Failing',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** Still to be attempted: its retries can be cancelled. */
const retrying = (delivery: Delivery) =>
  delivery.state === 'pending' || delivery.state === 'failing';

/** The body as sent, indented when it is JSON (it always is, unless the log is damaged). */
function prettyPayload(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

/** The log follows retries: polls at the earliest due retry, then backs off while it is awaited. */
const POLL_FIRST_MS = 1000;
const POLL_MAX_MS = 30_000;
/** setTimeout's longest delay. */
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

/** The response code of an attempt, or what went wrong before there was one. */
export function attemptOutcome(attempt: Delivery['attempts'][number]): string {
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
  const [editing, setEditing] = useState<Webhook>();
  // The secret of a webhook created or rotated in this visit, for the snippet (never stored).
  const [knownSecrets, setKnownSecrets] = useState<Record<string, string>>({});
  const { busy, error, act } = useAction();

  const list = webhooks.data?.webhooks ?? [];
  const selected = list.find((w) => w.id === selectedId);
  // Each endpoint's last 7 days, read again whenever the list is.
  const stats = useLoad(
    async () =>
      Object.fromEntries(
        await Promise.all(
          list.map(
            async (w) => [w.id, await get<WebhookStats>(`${webhookPath(w.id)}/stats`)] as const,
          ),
        ),
      ),
    [webhooks.data],
  );

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
            columns={[
              'Endpoint',
              'Events',
              'State',
              { label: 'Success (7 days)', num: true },
              'Created',
              { label: 'Actions', hidden: true },
            ]}
          >
            {list.map((webhook) => {
              const state = webhookState(webhook);
              const counts = stats.data?.[webhook.id];
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
                    {webhook.enabled && webhook.failingSince && (
                      <div class="muted small">since {formatDateTime(webhook.failingSince)}</div>
                    )}
                  </td>
                  <td class="num">
                    {!counts ? (
                      '—'
                    ) : (
                      <>
                        <div>
                          {counts.successRate === null ? '—' : formatPercent(counts.successRate)}
                        </div>
                        <div class="muted small">
                          {formatInteger(counts.succeeded)} of{' '}
                          {formatInteger(counts.succeeded + counts.failing + counts.failed)}
                        </div>
                      </>
                    )}
                  </td>
                  <td>{formatDateTime(webhook.createdAt)}</td>
                  <td class="actions">
                    <Button
                      size="sm"
                      variant="ghost"
                      onClick={() => setEditing(webhook)}
                      aria-label={`Edit ${webhook.url}`}
                    >
                      Edit
                    </Button>
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
          <DeliveryLog
            key={selected.id}
            webhook={selected}
            toast={toast}
            onChange={() => webhooks.reload()}
          />
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
      <EditWebhookDialog
        webhook={editing}
        onClose={() => setEditing(undefined)}
        onSaved={(webhook) => {
          setEditing(undefined);
          toast(`Saved ${webhook.url}`);
          webhooks.reload();
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

/** The events an endpoint subscribes to, as checkboxes. */
function EventChoices(props: {
  id: string;
  choices: readonly string[];
  chosen: string[];
  onChange: (chosen: string[]) => void;
  error?: string;
}) {
  return (
    <FieldSet id={props.id} legend="Events" error={props.error}>
      {props.choices.map((name) => (
        <label class="checkbox" key={name}>
          <input
            type="checkbox"
            checked={props.chosen.includes(name)}
            onChange={(e) =>
              props.onChange(
                e.currentTarget.checked
                  ? [...props.chosen, name]
                  : props.chosen.filter((chosenName) => chosenName !== name),
              )
            }
          />
          <code>{name}</code>
        </label>
      ))}
    </FieldSet>
  );
}

/** Where an answer's JSON pointer shows among EndpointFields (`<prefix>-url`, `<prefix>-events`). */
const endpointFieldOf = (prefix: string) => (field: string) =>
  field === '/url'
    ? `${prefix}-url`
    : /^\/events?(\/|$)/.test(field)
      ? `${prefix}-events`
      : undefined;

const noEventChosen = (events: string[]) => (events.length ? '' : 'Choose at least one event.');

/** An endpoint's URL and events, as adding and editing ask for them. */
function EndpointFields(props: {
  prefix: string;
  urlHint: string;
  placeholder?: string;
  autoFocus?: boolean;
  url: string;
  onUrl: (url: string) => void;
  choices: readonly string[];
  events: string[];
  onEvents: (events: string[]) => void;
  errors: Record<string, string | undefined>;
}) {
  const { prefix } = props;
  return (
    <>
      <Field
        id={`${prefix}-url`}
        label="Endpoint URL"
        hint={props.urlHint}
        error={props.errors[`${prefix}-url`]}
      >
        <input
          id={`${prefix}-url`}
          type="url"
          required
          value={props.url}
          placeholder={props.placeholder}
          autoFocus={props.autoFocus}
          onInput={(e) => props.onUrl(e.currentTarget.value)}
        />
      </Field>
      <EventChoices
        id={`${prefix}-events`}
        choices={props.choices}
        chosen={props.events}
        onChange={props.onEvents}
        error={props.errors[`${prefix}-events`]}
      />
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
      fieldOf: endpointFieldOf('webhook'),
      rules: { 'webhook-events': () => noEventChosen(events) },
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
        <EndpointFields
          prefix="webhook"
          urlHint="An https URL that answers 2xx."
          placeholder="https://example.com/webhooks/switchyard"
          autoFocus
          url={url}
          onUrl={setUrl}
          choices={WEBHOOK_EVENTS}
          events={events}
          onEvents={setEvents}
          errors={form.errors}
        />
        <FormNotice form={form} title="The endpoint was not added" />
      </form>
    </Modal>
  );
}

/** The filter as the form shows it: indented JSON, '' for none. */
const filterText = (webhook: Webhook) =>
  webhook.filter && Object.keys(webhook.filter).length
    ? JSON.stringify(webhook.filter, null, 2)
    : '';

/** Whether a filter's text parses to a JSON object ('' for none, which removes it). */
const filterProblem = jsonObjectRule({
  notObject: 'Write a JSON object, e.g. {"data.country": {"$in": ["DE", "AT"]}}.',
});

/** Changes an endpoint's URL, events and payload filter (PATCH /api/webhooks/{id}). */
function EditWebhookDialog(props: {
  webhook: Webhook | undefined;
  onClose: () => void;
  onSaved: (webhook: Webhook) => void;
}) {
  const { webhook } = props;
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [filter, setFilter] = useState('');
  useEffect(() => {
    if (!webhook) return;
    setUrl(webhook.url);
    setEvents(webhook.events);
    setFilter(filterText(webhook));
  }, [webhook]);
  const form = useForm(
    async () => {
      const saved = await api<Webhook>('PATCH', webhookPath(webhook!.id), {
        body: {
          url: url.trim(),
          events,
          // {} removes a filter the endpoint had.
          filter: filter.trim() ? (JSON.parse(filter) as object) : {},
        },
      });
      props.onSaved(saved);
    },
    {
      fieldOf: (field) =>
        field.startsWith('/filter') ? 'edit-filter' : endpointFieldOf('edit')(field),
      rules: {
        'edit-events': () => noEventChosen(events),
        'edit-filter': filterProblem,
      },
    },
  );
  const close = () => {
    form.reset();
    props.onClose();
  };
  // The built-in events, then the organization's own types or prefixes this endpoint has.
  const choices = [
    ...WEBHOOK_EVENTS,
    ...(webhook?.events ?? []).filter((e) => !WEBHOOK_EVENTS.includes(e as never)),
  ];
  return (
    <Modal
      title="Edit the endpoint"
      open={!!webhook}
      onClose={close}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button variant="primary" type="submit" form="edit-webhook" busy={form.busy}>
            Save endpoint
          </Button>
        </>
      }
    >
      <form id="edit-webhook" onSubmit={form.onSubmit} noValidate>
        <EndpointFields
          prefix="edit"
          urlHint="Deliveries still to be attempted go to the new URL."
          url={url}
          onUrl={setUrl}
          choices={choices}
          events={events}
          onEvents={setEvents}
          errors={form.errors}
        />
        <Field
          id="edit-filter"
          label="Payload filter (optional)"
          hint={
            <>
              Only events whose body matches every condition are sent, e.g.{' '}
              <code>{'{"data.country": {"$in": ["DE", "AT"]}}'}</code>; empty sends every event.
            </>
          }
          error={form.errors['edit-filter']}
        >
          <textarea
            id="edit-filter"
            rows={4}
            class="mono"
            value={filter}
            spellcheck={false}
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
        </Field>
        <FormNotice form={form} title="The endpoint was not saved" />
      </form>
    </Modal>
  );
}

/**
 * "Recover failed since": every message whose newest delivery since then failed is sent again
 * once (POST /api/webhooks/{id}/recover), e.g. after the receiver's outage; default since it
 * started failing, or a day ago.
 */
function RecoverDialog(props: {
  webhook: Webhook;
  open: boolean;
  onClose: () => void;
  onRecovered: (count: number) => void;
}) {
  const { webhook } = props;
  const [since, setSince] = useState('');
  useEffect(() => {
    if (!props.open) return;
    const from = webhook.failingSince ? Date.parse(webhook.failingSince) : Date.now() - 86_400_000;
    setSince(localInputOf(from));
  }, [props.open]);
  const form = useForm(
    async () => {
      const { recovered } = await post<{ recovered: number }>(
        `${webhookPath(webhook.id)}/recover`,
        { since: isoFromLocal(since) },
      );
      props.onRecovered(recovered);
    },
    {
      fieldOf: (field) => (field === '/since' ? 'recover-since' : undefined),
      rules: { 'recover-since': (value) => (isoFromLocal(value) ? '' : 'Choose a date and time.') },
    },
  );
  const close = () => {
    form.reset();
    props.onClose();
  };
  return (
    <Modal
      title="Recover failed deliveries"
      open={props.open}
      onClose={close}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button variant="primary" type="submit" form="recover-webhook" busy={form.busy}>
            Send again
          </Button>
        </>
      }
    >
      <form id="recover-webhook" onSubmit={form.onSubmit} noValidate>
        <p>
          Every event whose last delivery to <code>{webhook.url}</code> since this time failed is
          sent again, once, oldest first, with the same body and webhook-id. Events delivered since,
          or still being retried, are not.
        </p>
        <Field
          id="recover-since"
          label="Failed since"
          hint="In your browser's time zone."
          error={form.errors['recover-since']}
        >
          <input
            id="recover-since"
            type="datetime-local"
            required
            value={since}
            onInput={(e) => setSince(e.currentTarget.value)}
          />
        </Field>
        <FormNotice form={form} title="Nothing was sent" />
      </form>
    </Modal>
  );
}

/** The delivery log of one endpoint: filters, every attempt with the payload sent, replays, cancels and test events. */
function DeliveryLog(props: {
  webhook: Webhook;
  toast: (message: string) => void;
  /** Something the endpoint's row shows may have changed (its failing state). */
  onChange: () => void;
}) {
  const { webhook, toast } = props;
  const [state, setState] = useState('');
  const [event, setEvent] = useState('');
  const [eventId, setEventId] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [testEvent, setTestEvent] = useState(webhook.events[0] ?? '');
  const [chosen, setChosen] = useState<string[]>([]);
  const [openedId, setOpenedId] = useState<string>();
  const { busy, error, act } = useAction();

  const query = new URLSearchParams({ limit: '50' });
  if (state) query.set('state', state);
  if (event) query.set('event', event);
  if (eventId) query.set('eventId', eventId);
  if (isoFromLocal(since)) query.set('since', isoFromLocal(since));
  if (isoFromLocal(until)) query.set('until', isoFromLocal(until));
  const deliveries = useLoad(
    () => get<{ deliveries: Delivery[] }>(`${webhookPath(webhook.id)}/deliveries?${query}`),
    [webhook.id, query.toString()],
  );
  const list = deliveries.data?.deliveries ?? [];
  const opened = list.find((d) => d.id === openedId);
  const [loadedAt, setLoadedAt] = useState<number>();
  const backoff = useRef(POLL_FIRST_MS);
  /** What the last load showed (ids, states, attempts), to tell when something changed. */
  const seen = useRef<string>();

  // While deliveries are still to be attempted the log follows them, without spending the key's
  // rate limit on reloads that cannot show anything new: it reloads when the earliest retry is
  // due, then every 1, 2, 4... up to 30 s until that attempt's outcome is in (back to 1 s once
  // something changed), and not at all while the tab is hidden.
  useEffect(() => {
    if (!deliveries.data) return;
    setLoadedAt(Date.now());
    const summary = list.map((d) => `${d.id}:${d.state}:${d.attempts.length}`).join();
    if (summary !== seen.current) {
      backoff.current = POLL_FIRST_MS;
      // A delivery moved on: the endpoint's failing state and success rate may have too.
      if (seen.current !== undefined) props.onChange();
    }
    seen.current = summary;
    const open = list.filter(retrying);
    if (open.length === 0) return;
    const now = Date.now();
    const due = Math.min(...open.map((d) => Date.parse(d.nextAttemptAt ?? '') || now));
    let delay: number;
    if (due > now) {
      delay = due - now + POLL_FIRST_MS;
      backoff.current = POLL_FIRST_MS;
    } else {
      delay = backoff.current;
      backoff.current = Math.min(backoff.current * 2, POLL_MAX_MS);
    }
    let timer: number | undefined;
    const schedule = () => {
      window.clearTimeout(timer);
      if (!document.hidden)
        timer = window.setTimeout(deliveries.reload, Math.min(delay, LONGEST_TIMEOUT_MS));
    };
    const onVisibility = () => (document.hidden ? window.clearTimeout(timer) : deliveries.reload());
    schedule();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
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

  const cancel = (delivery: Delivery) =>
    act(async () => {
      await post<Delivery>(
        `${webhookPath(webhook.id)}/deliveries/${encodeURIComponent(delivery.id)}/cancel`,
      );
      toast(`Cancelled the retries of ${delivery.event} ${delivery.eventId}`);
      deliveries.reload();
      props.onChange();
    });

  const [recovering, setRecovering] = useState(false);
  const filtered = state || event || eventId || since || until;
  return (
    <Card
      id="deliveries"
      title={`Deliveries to ${webhook.url}`}
      subtitle="Newest first, every attempt with its answer and the payload sent. Retries use the same webhook-id, so receivers can drop duplicates."
    >
      <div class="toolbar">
        <div class="filters" role="group" aria-label="Filter deliveries">
          <label>
            <span>State</span>
            <select value={state} onChange={(e) => setState(e.currentTarget.value)}>
              <option value="">All</option>
              <option value="pending">Pending</option>
              <option value="failing">Failing (retrying)</option>
              <option value="succeeded">Succeeded</option>
              <option value="failed">Failed</option>
              <option value="cancelled">Cancelled</option>
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
          <label>
            <span>Created from</span>
            <input
              type="datetime-local"
              value={since}
              onChange={(e) => setSince(e.currentTarget.value)}
            />
          </label>
          <label>
            <span>Created before</span>
            <input
              type="datetime-local"
              value={until}
              onChange={(e) => setUntil(e.currentTarget.value)}
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
          <Button disabled={!webhook.enabled} onClick={() => setRecovering(true)}>
            Recover failed…
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
      <p class="muted small refresh-line">
        {loadedAt && <span>Updated {new Date(loadedAt).toLocaleTimeString('en')}. </span>}
        {list.some(retrying)
          ? 'Reloads as retries fall due.'
          : 'Nothing is waiting for a retry: reload to see new deliveries.'}{' '}
        <button type="button" class="link-btn" onClick={deliveries.reload}>
          Reload
        </button>
      </p>
      {!deliveries.data ? (
        deliveries.loading && <Loading />
      ) : list.length === 0 ? (
        <EmptyState title="No deliveries">
          {filtered ? 'None match these filters.' : 'Send a test event to see one arrive.'}
        </EmptyState>
      ) : (
        <DataTable
          label="Deliveries"
          testId="deliveries-table"
          columns={[
            { label: 'Select', hidden: true },
            'Event',
            'State',
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
                  <Badge tone={DELIVERY_TONES[delivery.state]}>
                    {DELIVERY_LABELS[delivery.state]}
                  </Badge>
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
                <td>
                  {delivery.nextAttemptAt ? (
                    <span title={formatDateTime(delivery.nextAttemptAt)}>
                      {relativeTime(delivery.nextAttemptAt)}
                    </span>
                  ) : delivery.cancelledAt ? (
                    <span class="muted small">cancelled {relativeTime(delivery.cancelledAt)}</span>
                  ) : (
                    '—'
                  )}
                </td>
                <td>{formatDateTime(delivery.createdAt)}</td>
                <td class="actions">
                  <Button
                    size="sm"
                    variant="ghost"
                    onClick={() => setOpenedId(delivery.id)}
                    aria-label={`Attempts of delivery ${delivery.id}`}
                  >
                    Attempts
                  </Button>
                  {retrying(delivery) ? (
                    <Button
                      size="sm"
                      variant="ghost"
                      class="danger-text"
                      disabled={busy}
                      onClick={() => cancel(delivery)}
                      aria-label={`Cancel the retries of delivery ${delivery.id}`}
                    >
                      Cancel retries
                    </Button>
                  ) : (
                    <Button
                      size="sm"
                      variant="ghost"
                      disabled={busy || !webhook.enabled}
                      onClick={() => replay([delivery.id])}
                      aria-label={`Replay delivery ${delivery.id}`}
                    >
                      Replay
                    </Button>
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      <RecoverDialog
        webhook={webhook}
        open={recovering}
        onClose={() => setRecovering(false)}
        onRecovered={(count) => {
          setRecovering(false);
          toast(`Sent again ${count} failed ${count === 1 ? 'delivery' : 'deliveries'}`);
          deliveries.reload();
        }}
      />
      <Modal
        title={`Delivery of ${opened?.event ?? ''}`}
        open={!!opened}
        onClose={() => setOpenedId(undefined)}
        wide
      >
        {opened && (
          <>
            <p class="muted small">
              Delivery <code>{opened.id}</code> of event <code>{opened.eventId}</code> to{' '}
              <code>{opened.url}</code>:{' '}
              <Badge tone={DELIVERY_TONES[opened.state]}>{DELIVERY_LABELS[opened.state]}</Badge>
              {opened.nextAttemptAt && <> next attempt {relativeTime(opened.nextAttemptAt)}</>}
            </p>
            <div class="delivery-detail">
              <div>
                <h3 class="section-title">Payload sent</h3>
                <pre class="code-block" tabIndex={0} aria-label="Payload sent">
                  {prettyPayload(opened.payload)}
                </pre>
                <CopyButton text={opened.payload} label="Copy payload" />
              </div>
              <div>
                <h3 class="section-title">Attempts and responses</h3>
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
              </div>
            </div>
          </>
        )}
      </Modal>
    </Card>
  );
}
