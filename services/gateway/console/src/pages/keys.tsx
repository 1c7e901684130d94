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
  Loading,
  Modal,
  PageHeader,
  SecretOnce,
  useLoad,
  useToast,
} from '../ui';

interface IssuedKey extends ApiKey {
  key: string;
}

export function keyState(
  key: ApiKey,
  now = Date.now(),
): { label: string; tone: 'green' | 'gray' | 'amber' } {
  if (!key.revokedAt) return { label: 'Active', tone: 'green' };
  return Date.parse(key.revokedAt) > now
    ? { label: `Expires ${formatDateTime(key.revokedAt)}`, tone: 'amber' }
    : { label: 'Revoked', tone: 'gray' };
}

/** Keys of one organization: the organization's own (paths under /api/v2/keys) or, for the admin, any. */
export function KeysTable(props: { keys: ApiKey[]; onRevoke: (key: ApiKey) => void }) {
  if (props.keys.length === 0) return <EmptyState title="No keys" />;
  return (
    <div class="table-wrap">
      <table class="table" data-testid="keys-table">
        <caption class="sr-only">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key id</th>
            <th scope="col">Created</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.keys.map((key) => {
            const state = keyState(key);
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
                      class="danger-text"
                      onClick={() => props.onRevoke(key)}
                      aria-label={`Revoke ${key.name || key.keyId}`}
                    >
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Create (name, then the key shown once) and revoke (after a confirmation) dialogs. */
export function useKeyDialogs(options: {
  issue: (name: string) => Promise<IssuedKey>;
  revoke: (keyId: string) => Promise<unknown>;
  changed: () => void;
  toast: (message: string) => void;
}) {
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<IssuedKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const close = () => {
    setCreating(false);
    setIssued(undefined);
    setRevoking(undefined);
    setName('');
    setError(undefined);
  };

  const dialogs = (
    <>
      <Modal
        title={issued ? 'Your new API key' : 'Create an API key'}
        open={creating}
        onClose={close}
        footer={
          issued ? (
            <Button variant="primary" onClick={close}>
              Done
            </Button>
          ) : (
            <>
              <Button onClick={close}>Cancel</Button>
              <Button variant="primary" type="submit" form="create-key" busy={busy}>
                Create key
              </Button>
            </>
          )
        }
      >
        {issued ? (
          <SecretOnce label={`Key "${issued.name || issued.keyId}"`} value={issued.key} />
        ) : (
          <form
            id="create-key"
            onSubmit={async (event) => {
              event.preventDefault();
              setBusy(true);
              setError(undefined);
              try {
                setIssued(await options.issue(name.trim()));
                options.changed();
              } catch (e) {
                setError(e);
              } finally {
                setBusy(false);
              }
            }}
          >
            <Field
              id="key-name"
              label="Name"
              hint="A label to tell keys apart, e.g. production or ci."
            >
              <input
                id="key-name"
                value={name}
                maxLength={100}
                autoFocus
                onInput={(e) => setName(e.currentTarget.value)}
              />
            </Field>
            <ErrorNotice error={error} />
          </form>
        )}
      </Modal>
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
  return { dialogs, create: () => setCreating(true), revoke: setRevoking };
}

export function KeysPage() {
  const keys = useLoad(() => get<{ keys: ApiKey[] }>('/api/v2/keys'));
  const [toastView, toast] = useToast();
  const { dialogs, create, revoke } = useKeyDialogs({
    issue: (name) => post<IssuedKey>('/api/v2/keys', { name }),
    revoke: (keyId) => post(`/api/v2/keys/${encodeURIComponent(keyId)}/revoke`, {}),
    changed: keys.reload,
    toast,
  });
  const list = keys.data?.keys ?? [];
  const active = list.filter((k) => !k.revokedAt).length;
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate calls as this organization: send one as Authorization: X-API-Key <key>. Only a hash is stored; a key is shown once, when created."
        actions={
          <Button variant="primary" onClick={create}>
            Create key
          </Button>
        }
      />
      <ErrorNotice error={keys.error} />
      <Card
        title="Keys"
        subtitle={keys.data ? `${active} active, ${list.length - active} revoked` : undefined}
      >
        {keys.data ? <KeysTable keys={list} onRevoke={revoke} /> : keys.loading && <Loading />}
      </Card>
      {dialogs}
      {toastView}
    </>
  );
}
