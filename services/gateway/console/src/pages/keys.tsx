import { useState } from 'preact/hooks';
import { get, post, type ApiKey } from '../api';
import { formatDateTime } from '../format';
import {
  Badge,
  Button,
  ConfirmDialog,
  Card,
  EmptyState,
  ErrorNotice,
  Field,
  FormNotice,
  Loading,
  Modal,
  PageHeader,
  DataTable,
  SecretOnce,
  useForm,
  useLoad,
  useToast,
} from '../ui';

export interface IssuedKey extends ApiKey {
  key: string;
}

export interface RotatedKey extends IssuedKey {
  replacedKeyId: string;
  replacedKeyRevokedAt: string;
}

/** The grace periods offered when a key is rotated: how long the old key keeps working. */
const GRACE_PERIODS: Array<{ seconds: number; label: string }> = [
  { seconds: 0, label: 'Stop it now' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
  { seconds: 7 * 86_400, label: '7 days' },
  { seconds: 30 * 86_400, label: '30 days' },
];

export function keyState(
  key: ApiKey,
  now = Date.now(),
): { label: string; tone: 'green' | 'gray' | 'amber' } {
  if (!key.revokedAt) return { label: 'Active', tone: 'green' };
  return Date.parse(key.revokedAt) > now
    ? { label: `Expires ${formatDateTime(key.revokedAt)}`, tone: 'amber' }
    : { label: 'Revoked', tone: 'gray' };
}

const isWorking = (key: ApiKey) => !key.revokedAt || Date.parse(key.revokedAt) > Date.now();

/** Keys of one organization: the organization's own (paths under /api/v2/keys) or, for the admin, any. */
export function KeysTable(props: {
  keys: ApiKey[];
  onRevoke: (key: ApiKey) => void;
  onRotate: (key: ApiKey) => void;
}) {
  if (props.keys.length === 0) return <EmptyState title="No keys" />;
  return (
    <DataTable
      label="API keys"
      testId="keys-table"
      columns={['Name', 'Key id', 'Created', 'Status', { label: 'Actions', hidden: true }]}
    >
      {props.keys.map((key) => {
        const state = keyState(key);
        const label = key.name || key.keyId;
        return (
          <tr key={key.keyId} data-key-id={key.keyId}>
            <td>{key.name || <span class="muted">unnamed</span>}</td>
            <td>
              <code>{key.keyId}</code>
            </td>
            <td>{formatDateTime(key.createdAt)}</td>
            <td>
              <Badge tone={state.tone}>{state.label}</Badge>
            </td>
            <td class="actions">
              {!key.revokedAt && (
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => props.onRotate(key)}
                  aria-label={`Rotate ${label}`}
                >
                  Rotate
                </Button>
              )}
              {isWorking(key) && (
                <Button
                  size="sm"
                  variant="ghost"
                  class="danger-text"
                  onClick={() => props.onRevoke(key)}
                  aria-label={`Revoke ${label}`}
                >
                  Revoke
                </Button>
              )}
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}

/** Create (name, then the key shown once) dialog. */
function CreateKeyDialog(props: {
  open: boolean;
  issue: (name: string) => Promise<IssuedKey>;
  onClose: () => void;
  changed: () => void;
}) {
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<IssuedKey>();
  const form = useForm(
    async () => {
      setIssued(await props.issue(name.trim()));
      props.changed();
    },
    { fieldOf: (field) => (field === '/name' ? 'key-name' : undefined) },
  );
  const close = () => {
    setIssued(undefined);
    setName('');
    form.reset();
    props.onClose();
  };
  return (
    <Modal
      title={issued ? 'Your new API key' : 'Create an API key'}
      open={props.open}
      onClose={close}
      footer={
        issued ? (
          <Button variant="primary" onClick={close}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="primary" type="submit" form="create-key" busy={form.busy}>
              Create key
            </Button>
          </>
        )
      }
    >
      {issued ? (
        <SecretOnce label={`Key "${issued.name || issued.keyId}"`} value={issued.key} />
      ) : (
        <form id="create-key" onSubmit={form.onSubmit} noValidate>
          <Field
            id="key-name"
            label="Name"
            hint="A label to tell keys apart, e.g. production or ci."
            error={form.errors['key-name']}
          >
            <input
              id="key-name"
              value={name}
              maxLength={100}
              autoFocus
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </Field>
          <FormNotice form={form} title="The key was not created" />
        </form>
      )}
    </Modal>
  );
}

/**
 * Rotation: a new key with the same name, shown once; the old one keeps working for the grace
 * period chosen, so the clients using it can move over.
 */
function RotateKeyDialog(props: {
  subject: ApiKey | undefined;
  rotate: (keyId: string, gracePeriodSeconds: number) => Promise<RotatedKey>;
  onClose: () => void;
  changed: () => void;
}) {
  const [grace, setGrace] = useState(86_400);
  const [rotated, setRotated] = useState<RotatedKey>();
  const form = useForm(
    async () => {
      setRotated(await props.rotate(props.subject!.keyId, grace));
      props.changed();
    },
    { fieldOf: (field) => (field === '/gracePeriodSeconds' ? 'key-grace' : undefined) },
  );
  const close = () => {
    setRotated(undefined);
    setGrace(86_400);
    form.reset();
    props.onClose();
  };
  const label = props.subject ? props.subject.name || props.subject.keyId : '';
  return (
    <Modal
      title={rotated ? 'The new key' : `Rotate ${label}?`}
      open={props.subject !== undefined}
      onClose={close}
      footer={
        rotated ? (
          <Button variant="primary" onClick={close}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="primary" type="submit" form="rotate-key" busy={form.busy}>
              Rotate key
            </Button>
          </>
        )
      }
    >
      {rotated ? (
        <>
          <SecretOnce label={`Key "${rotated.name || rotated.keyId}"`} value={rotated.key} />
          <p data-testid="rotation-grace">
            <code>{rotated.replacedKeyId}</code>{' '}
            {Date.parse(rotated.replacedKeyRevokedAt) > Date.now()
              ? `keeps working until ${formatDateTime(rotated.replacedKeyRevokedAt)}: move its clients to the new key before then.`
              : 'has stopped working.'}
          </p>
        </>
      ) : (
        <form id="rotate-key" onSubmit={form.onSubmit} noValidate>
          <p>
            A new key named <strong>{props.subject?.name || 'unnamed'}</strong> replaces{' '}
            <code>{props.subject?.keyId}</code>. It is shown once.
          </p>
          <Field
            id="key-grace"
            label="The old key keeps working for"
            hint="Long enough to deploy the new key everywhere the old one is used."
            error={form.errors['key-grace']}
          >
            <select
              id="key-grace"
              value={String(grace)}
              onChange={(e) => setGrace(Number(e.currentTarget.value))}
            >
              {GRACE_PERIODS.map((p) => (
                <option key={p.seconds} value={String(p.seconds)}>
                  {p.label}
                </option>
              ))}
            </select>
          </Field>
          <FormNotice form={form} title="The key was not rotated" />
        </form>
      )}
    </Modal>
  );
}

/** Create, rotate and revoke dialogs, for the organization's own keys or (admin) any organization's. */
export function useKeyDialogs(options: {
  issue: (name: string) => Promise<IssuedKey>;
  revoke: (keyId: string) => Promise<unknown>;
  rotate: (keyId: string, gracePeriodSeconds: number) => Promise<RotatedKey>;
  changed: () => void;
  toast: (message: string) => void;
}) {
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey>();
  const [rotating, setRotating] = useState<ApiKey>();

  const dialogs = (
    <>
      <CreateKeyDialog
        open={creating}
        issue={options.issue}
        onClose={() => setCreating(false)}
        changed={options.changed}
      />
      <RotateKeyDialog
        subject={rotating}
        rotate={options.rotate}
        onClose={() => setRotating(undefined)}
        changed={options.changed}
      />
      <ConfirmDialog
        title="Revoke this key?"
        subject={revoking}
        confirmLabel="Revoke key"
        onClose={() => setRevoking(undefined)}
        onConfirm={async (key) => {
          await options.revoke(key.keyId);
          options.toast(`Key ${key.name || key.keyId} revoked`);
          options.changed();
        }}
      >
        <p>
          <code>{revoking?.keyId}</code> ({revoking?.name || 'unnamed'}) stops working within
          seconds on every gateway replica. Calls made with it get 401. This cannot be undone.
        </p>
        <p class="muted">If you signed in with this key, you will be signed out.</p>
      </ConfirmDialog>
    </>
  );
  return {
    dialogs,
    create: () => setCreating(true),
    revoke: setRevoking,
    rotate: setRotating,
  };
}

export function KeysPage() {
  const keys = useLoad(() => get<{ keys: ApiKey[] }>('/api/v2/keys'));
  const [toastView, toast] = useToast();
  const { dialogs, create, revoke, rotate } = useKeyDialogs({
    issue: (name) => post<IssuedKey>('/api/v2/keys', { name }),
    revoke: (keyId) => post(`/api/v2/keys/${encodeURIComponent(keyId)}/revoke`, {}),
    rotate: (keyId, gracePeriodSeconds) =>
      post<RotatedKey>(`/api/v2/keys/${encodeURIComponent(keyId)}/rotate`, { gracePeriodSeconds }),
    changed: keys.reload,
    toast,
  });
  const list = keys.data?.keys ?? [];
  const active = list.filter((k) => !k.revokedAt).length;
  const expiring = list.filter((k) => k.revokedAt && isWorking(k)).length;
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate calls as this organization: send one as Authorization: X-API-Key <key>. Only a hash is stored; a key is shown once, when created or rotated."
        actions={
          <Button variant="primary" onClick={create}>
            Create key
          </Button>
        }
      />
      <ErrorNotice error={keys.error} />
      <Card
        title="Keys"
        subtitle={
          keys.data
            ? `${active} active, ${expiring ? `${expiring} expiring, ` : ''}${list.length - active - expiring} revoked`
            : undefined
        }
      >
        {keys.data ? (
          <KeysTable keys={list} onRevoke={revoke} onRotate={rotate} />
        ) : (
          keys.loading && <Loading />
        )}
      </Card>
      {dialogs}
      {toastView}
    </>
  );
}
