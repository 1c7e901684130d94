import { useEffect, useRef, useState } from 'preact/hooks';
import { EVENT_TYPE_NAME_PATTERN } from '../../../../../shared/src/events/webhook-events';
import { api, get, post, type Delivery, type ErrorDetail, type Webhook } from '../api';
import { formatDateTime } from '../format';
import {
  Badge,
  Button,
  Card,
  ConfirmDialog,
  DataTable,
  EmptyState,
  ErrorNotice,
  Field,
  FormNotice,
  Loading,
  Modal,
  PageHeader,
  patternRule,
  useForm,
  useLoad,
  useToast,
  jsonObjectRule,
  ShowMore,
  usePagedList,
} from '../ui';
import { attemptOutcome, DELIVERY_LABELS, DELIVERY_TONES } from './webhooks';

/** An event type as GET /api/v2/event-types lists it (GET one adds its versions). */
export interface EventType {
  name: string;
  description: string;
  builtIn: boolean;
  version: number | null;
  schema: object | null;
  example: object | null;
  createdAt: string | null;
  updatedAt: string | null;
  deletedAt: string | null;
  versions?: Array<{ version: number; schema: object; example: object | null; createdAt: string }>;
}

const typePath = (name: string) => `/api/v2/event-types/${encodeURIComponent(name)}`;
const json = (value: unknown) => JSON.stringify(value, null, 2);

const FIELDS: Record<string, string> = {
  name: 'type-name',
  description: 'type-description',
  schema: 'type-schema',
  example: 'type-example',
};

/** The field of an API error detail: `/schema/properties/sku/type` at the schema. */
const fieldOfType = (pointer: string) => FIELDS[pointer.split('/')[1] ?? ''];

/**
 * Inside a schema or example the place matters: the API's words name it (`/properties/sku/type
 * must be...`); where they do not, the detail's pointer below the field goes first.
 */
function describeDetail(detail: ErrorDetail): string {
  const below = detail.field.split('/').slice(2).join('/');
  return below && !detail.reason.includes(`/${below}`)
    ? `/${below}: ${detail.reason}`
    : detail.reason;
}

/** A new type (name, description, schema, example), or the next schema version of one. */
function EventTypeDialog(props: {
  open: boolean;
  /** Publishing a new version of this type; undefined: a new type. */
  type?: EventType;
  onClose: () => void;
  onSaved: (type: EventType) => void;
}) {
  const [fields, setFields] = useState({ name: '', description: '', schema: '', example: '' });
  const [opened, setOpened] = useState<EventType | undefined | null>(null);
  const form = useForm(
    async () => {
      const body = {
        ...(fields.description.trim() && { description: fields.description.trim() }),
        schema: JSON.parse(fields.schema) as object,
        ...(fields.example.trim() && { example: JSON.parse(fields.example) as object }),
      };
      const saved = props.type
        ? await api<EventType>('PUT', typePath(props.type.name), { body })
        : await post<EventType>('/api/v2/event-types', { name: fields.name.trim(), ...body });
      props.onSaved(saved);
      close();
    },
    {
      fieldOf: fieldOfType,
      describe: describeDetail,
      rules: {
        'type-name': patternRule(
          EVENT_TYPE_NAME_PATTERN,
          'Use dotted lower-case words, e.g. order.shipped.',
        ),
        'type-schema': jsonObjectRule({
          missing: 'Write the JSON Schema of the data.',
          notObject: 'Write a JSON object.',
        }),
        'type-example': jsonObjectRule({ notObject: 'Write a JSON object.' }),
      },
    },
  );
  if (props.open && opened !== props.type) {
    setOpened(props.type);
    form.reset();
    setFields({
      name: '',
      description: props.type?.description ?? '',
      schema: props.type?.schema ? json(props.type.schema) : '',
      example: props.type?.example ? json(props.type.example) : '',
    });
  }
  const close = () => {
    setOpened(null);
    props.onClose();
  };
  const set = (patch: Partial<typeof fields>) => setFields({ ...fields, ...patch });
  return (
    <Modal
      title={
        props.type
          ? `Publish version ${(props.type.version ?? 0) + 1} of ${props.type.name}`
          : 'Define an event type'
      }
      open={props.open}
      onClose={close}
      wide
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button variant="primary" type="submit" form="event-type" busy={form.busy}>
            {props.type ? 'Publish version' : 'Create type'}
          </Button>
        </>
      }
    >
      <form id="event-type" class="form-grid" onSubmit={form.onSubmit} noValidate>
        {props.type ? (
          <p>
            New events of <code>{props.type.name}</code> are checked against this schema; events
            already published keep the version they were checked with, and every earlier version
            stays readable.
          </p>
        ) : (
          <Field
            id="type-name"
            label="Name"
            hint="Dotted lower-case words, e.g. order.shipped. Never reused, even once deleted."
            error={form.errors['type-name']}
          >
            <input
              id="type-name"
              required
              maxLength={100}
              spellcheck={false}
              value={fields.name}
              onInput={(e) => set({ name: e.currentTarget.value })}
            />
          </Field>
        )}
        <Field id="type-description" label="Description" error={form.errors['type-description']}>
          <input
            id="type-description"
            maxLength={1000}
            value={fields.description}
            onInput={(e) => set({ description: e.currentTarget.value })}
          />
        </Field>
        <Field
          id="type-schema"
          label="Schema of the data (JSON Schema 2020-12)"
          hint="Checked when saved: an unknown keyword is an error, not ignored."
          error={form.errors['type-schema']}
        >
          <textarea
            id="type-schema"
            rows={10}
            spellcheck={false}
            class="mono"
            value={fields.schema}
            onInput={(e) => set({ schema: e.currentTarget.value })}
          />
        </Field>
        <Field
          id="type-example"
          label="Example of the data (optional)"
          hint="Checked against the schema; the catalog shows it and test events send it."
          error={form.errors['type-example']}
        >
          <textarea
            id="type-example"
            rows={4}
            spellcheck={false}
            class="mono"
            value={fields.example}
            onInput={(e) => set({ example: e.currentTarget.value })}
          />
        </Field>
        <FormNotice form={form} title="The event type was not saved" />
      </form>
    </Modal>
  );
}

/** One type: its versions (newest first), each one's schema and example; built-ins read-only. */
function EventTypeDetail(props: { name: string; onPublish: (type: EventType) => void }) {
  const type = useLoad(() => get<EventType>(typePath(props.name)), [props.name]);
  const [chosen, setChosen] = useState<number>();
  if (!type.data) return type.error ? <ErrorNotice error={type.error} /> : <Loading />;
  const versions = [...(type.data.versions ?? [])].reverse();
  const shown = versions.find((v) => v.version === chosen) ?? versions[0];
  const schema = shown?.schema ?? type.data.schema;
  const example = shown ? shown.example : type.data.example;
  return (
    <Card
      id="event-type-detail"
      title={type.data.name}
      subtitle={type.data.description || undefined}
      actions={
        !type.data.builtIn &&
        !type.data.deletedAt && (
          <Button size="sm" variant="primary" onClick={() => props.onPublish(type.data!)}>
            Publish a new version
          </Button>
        )
      }
    >
      {type.data.deletedAt && (
        <p data-testid="type-deleted">
          <Badge tone="gray">Deleted {formatDateTime(type.data.deletedAt)}</Badge> It takes no new
          events; its schemas stay readable here and its name is not used again.
        </p>
      )}
      {type.data.builtIn ? (
        <p class="muted">Built in: Switchyard sends it; it cannot be replaced or deleted.</p>
      ) : (
        <Field id="type-version" label="Version">
          <select
            id="type-version"
            value={String(shown?.version ?? '')}
            onChange={(e) => setChosen(Number(e.currentTarget.value))}
          >
            {versions.map((v) => (
              <option key={v.version} value={String(v.version)}>
                {`Version ${v.version}${v === versions[0] ? ' (current)' : ''}, ${formatDateTime(v.createdAt)}`}
              </option>
            ))}
          </select>
        </Field>
      )}
      {schema ? (
        <pre class="code-block" tabIndex={0} aria-label="Schema" data-testid="type-schema">
          {json(schema)}
        </pre>
      ) : (
        <p class="muted">No schema is published for it.</p>
      )}
      {example && (
        <pre class="code-block" tabIndex={0} aria-label="Example" data-testid="type-example">
          {json(example)}
        </pre>
      )}
    </Card>
  );
}

/** An event as GET /api/v2/events lists it. */
interface RecordedEvent {
  id: string;
  type: string;
  key: string | null;
  schemaVersion: number | null;
  data: unknown;
  occurredAt: string;
  receivedAt: string;
  deliveries: number;
}

interface EventPage {
  events: RecordedEvent[];
  next: string | null;
}

const EVENTS_PAGE_SIZE = 25;

/**
 * The organization's recent events (GET /api/v2/events), newest first, a page at a time, by
 * type (or prefix) and key; each opens its deliveries.
 */
function RecentEvents(props: { onOpen: (eventId: string) => void }) {
  const [filter, setFilter] = useState({ type: '', key: '' });
  const [typeInput, setTypeInput] = useState('');
  const [keyInput, setKeyInput] = useState('');
  const list = usePagedList<RecordedEvent>(
    async (cursor) => {
      const query = new URLSearchParams({ limit: String(EVENTS_PAGE_SIZE) });
      if (filter.type) query.set('type', filter.type);
      if (filter.key) query.set('key', filter.key);
      if (cursor) query.set('cursor', cursor);
      const { events, next } = await get<EventPage>(`/api/v2/events?${query}`);
      return { items: events, next };
    },
    [filter.type, filter.key],
  );
  const { items: events, page } = list;
  const apply = (event: Event) => {
    event.preventDefault();
    setFilter({ type: typeInput.trim(), key: keyInput.trim() });
    list.restart();
  };
  const filtered = Boolean(filter.type || filter.key);
  return (
    <Card
      title="Recent events"
      subtitle={
        events.length
          ? `${events.length} shown, newest first${list.more ? ', older ones below' : ''}`
          : 'Accepted events, newest first, with the deliveries each produced'
      }
    >
      <form
        class="inline-form"
        onSubmit={apply}
        noValidate
        role="search"
        aria-label="Filter events"
      >
        <Field id="events-type" label="Type" hint="order.shipped, or order.* for every order type">
          <input
            id="events-type"
            maxLength={100}
            spellcheck={false}
            value={typeInput}
            onInput={(e) => setTypeInput(e.currentTarget.value)}
          />
        </Field>
        <Field id="events-key" label="Key">
          <input
            id="events-key"
            maxLength={200}
            spellcheck={false}
            value={keyInput}
            onInput={(e) => setKeyInput(e.currentTarget.value)}
          />
        </Field>
        <Button type="submit" busy={page.loading}>
          Show events
        </Button>
      </form>
      <ErrorNotice error={page.error} />
      {!page.data && page.loading && events.length === 0 ? (
        <Loading />
      ) : events.length === 0 ? (
        <EmptyState title="No events">
          {filtered
            ? 'No recent event matches the filter.'
            : 'Events published with POST /api/v2/events or on the domain-events topic, and built-in events, appear here once accepted.'}
        </EmptyState>
      ) : (
        <DataTable
          label="Recent events"
          testId="recent-events"
          columns={[
            'Received',
            'Type',
            'Key',
            { label: 'Deliveries', num: true },
            'Id',
            { label: 'Actions', hidden: true },
          ]}
        >
          {events.map((event) => (
            <tr key={event.id}>
              <td class="nowrap">{formatDateTime(event.receivedAt)}</td>
              <td>
                <code>{event.type}</code>
              </td>
              <td>{event.key ? <code>{event.key}</code> : <span class="muted">—</span>}</td>
              <td class="num">{event.deliveries}</td>
              <td>
                <code class="small">{event.id}</code>
              </td>
              <td class="actions">
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => props.onOpen(event.id)}
                  aria-label={`Deliveries of ${event.id}`}
                >
                  Deliveries
                </Button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ShowMore list={list} label="Show older events" />
    </Card>
  );
}

/** One delivery of an event, with the endpoint it went to. */
interface EventDelivery {
  webhook: Webhook;
  delivery: Delivery;
}

/**
 * Where one event went: its delivery to each endpoint (GET /api/webhooks, then each endpoint's
 * deliveries of that event id).
 */
function EventDeliveries(props: { opened?: { eventId: string; at: number } }) {
  const [eventId, setEventId] = useState('');
  const [found, setFound] = useState<{ eventId: string; deliveries: EventDelivery[] }>();
  const formRef = useRef<HTMLFormElement>(null);
  // An event opened from the list: its id in the field, looked up as if submitted, in view.
  useEffect(() => {
    if (!props.opened) return;
    setEventId(props.opened.eventId);
    const target = formRef.current;
    if (!target) return;
    window.setTimeout(() => {
      target.requestSubmit();
      target.scrollIntoView({ block: 'nearest' });
    });
  }, [props.opened]);
  const form = useForm(
    async () => {
      const id = eventId.trim();
      const { webhooks } = await get<{ webhooks: Webhook[] }>('/api/webhooks');
      const lists = await Promise.all(
        webhooks.map(async (webhook) => {
          const { deliveries } = await get<{ deliveries: Delivery[] }>(
            `/api/webhooks/${encodeURIComponent(webhook.id)}/deliveries?eventId=${encodeURIComponent(id)}`,
          );
          return deliveries.map((delivery) => ({ webhook, delivery }));
        }),
      );
      setFound({ eventId: id, deliveries: lists.flat() });
    },
    { fieldOf: (pointer) => (pointer === '/eventId' ? 'event-id' : undefined) },
  );
  return (
    <Card
      title="An event's deliveries"
      subtitle="Every endpoint an event went to: give the id POST /api/v2/events answered (or the one you sent)."
    >
      <form class="inline-form" onSubmit={form.onSubmit} noValidate ref={formRef}>
        <Field id="event-id" label="Event id" error={form.errors['event-id']}>
          <input
            id="event-id"
            required
            maxLength={200}
            spellcheck={false}
            value={eventId}
            onInput={(e) => setEventId(e.currentTarget.value)}
          />
        </Field>
        <Button type="submit" busy={form.busy}>
          Find deliveries
        </Button>
      </form>
      <FormNotice form={form} title="The deliveries could not be read" />
      {found &&
        (found.deliveries.length === 0 ? (
          <EmptyState title={`No deliveries of ${found.eventId}`}>
            No endpoint subscribed to its type (or its filter), or the id is not an event of this
            organization.
          </EmptyState>
        ) : (
          <DataTable
            label={`Deliveries of ${found.eventId}`}
            testId="event-deliveries"
            columns={['Endpoint', 'Event', 'State', 'Attempts', 'Last response', 'Created']}
          >
            {found.deliveries.map(({ webhook, delivery }) => {
              const last = delivery.attempts[delivery.attempts.length - 1];
              return (
                <tr key={delivery.id}>
                  <td>
                    <code>{webhook.url}</code>
                  </td>
                  <td>
                    <code>{delivery.event}</code>
                  </td>
                  <td>
                    <Badge tone={DELIVERY_TONES[delivery.state]}>
                      {DELIVERY_LABELS[delivery.state]}
                    </Badge>
                  </td>
                  <td class="num">{delivery.attempts.length}</td>
                  <td>{last ? attemptOutcome(last) : <span class="muted">none yet</span>}</td>
                  <td>{formatDateTime(delivery.createdAt)}</td>
                </tr>
              );
            })}
          </DataTable>
        ))}
    </Card>
  );
}

export function EventsPage() {
  const types = useLoad(() => get<{ eventTypes: EventType[] }>('/api/v2/event-types'));
  const [selected, setSelected] = useState<string>();
  const [creating, setCreating] = useState(false);
  const [publishing, setPublishing] = useState<EventType>();
  const [deleting, setDeleting] = useState<EventType>();
  const [detailVersion, setDetailVersion] = useState(0);
  const [opened, setOpened] = useState<{ eventId: string; at: number }>();
  const [toastView, toast] = useToast();
  const list = types.data?.eventTypes ?? [];
  const own = list.filter((t) => !t.builtIn);
  return (
    <>
      <PageHeader
        title="Events"
        description="The organization's own event types, each with the JSON Schema of its data: published with POST /api/v2/events (or on the domain-events topic), checked against the newest version, and delivered as signed webhooks to the endpoints subscribed to them. Switchyard's built-in events are listed beside them."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Define event type
          </Button>
        }
      />
      <ErrorNotice error={types.error} />
      <Card
        title="Event types"
        subtitle={
          types.data
            ? `${own.length} of the organization's, ${list.length - own.length} built in`
            : undefined
        }
      >
        {!types.data ? (
          types.loading && <Loading />
        ) : (
          <DataTable
            label="Event types"
            testId="event-types-table"
            columns={[
              'Name',
              'Version',
              'Description',
              'Updated',
              'Status',
              { label: 'Actions', hidden: true },
            ]}
          >
            {list.map((type) => (
              <tr key={type.name} data-type={type.name}>
                <td>
                  <code>{type.name}</code>
                </td>
                <td class="num">{type.version ?? <span class="muted">—</span>}</td>
                <td>{type.description || <span class="muted">—</span>}</td>
                <td>{formatDateTime(type.updatedAt)}</td>
                <td>
                  {type.builtIn ? (
                    <Badge tone="blue">Built in</Badge>
                  ) : (
                    <Badge tone="green">Active</Badge>
                  )}
                </td>
                <td class="actions">
                  <Button
                    size="sm"
                    variant="ghost"
                    onClick={() => setSelected(type.name)}
                    aria-label={`Show ${type.name}`}
                  >
                    Show
                  </Button>
                  {!type.builtIn && !type.deletedAt && (
                    <Button
                      size="sm"
                      variant="ghost"
                      class="danger-text"
                      onClick={() => setDeleting(type)}
                      aria-label={`Delete ${type.name}`}
                    >
                      Delete
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
      {selected && (
        <EventTypeDetail
          key={`${selected}-${detailVersion}`}
          name={selected}
          onPublish={setPublishing}
        />
      )}
      <RecentEvents onOpen={(eventId) => setOpened({ eventId, at: Date.now() })} />
      <EventDeliveries opened={opened} />
      <EventTypeDialog
        open={creating || publishing !== undefined}
        type={publishing}
        onClose={() => {
          setCreating(false);
          setPublishing(undefined);
        }}
        onSaved={(type) => {
          toast(`${type.name} version ${type.version} saved`);
          setSelected(type.name);
          setDetailVersion((n) => n + 1);
          types.reload();
        }}
      />
      <ConfirmDialog
        title="Delete this event type?"
        subject={deleting}
        confirmLabel="Delete event type"
        onClose={() => setDeleting(undefined)}
        onConfirm={async (type) => {
          await api('DELETE', typePath(type.name));
          toast(`${type.name} deleted`);
          setDetailVersion((n) => n + 1);
          types.reload();
        }}
      >
        <p>
          <code>{deleting?.name}</code> takes no new events from now on (404); events already
          published are still delivered. Its schemas stay readable and its name is not used again.
        </p>
      </ConfirmDialog>
      {toastView}
    </>
  );
}
