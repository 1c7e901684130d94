import { useState } from 'preact/hooks';
import { get, post, api, type ApiKey, type Organization } from '../api';
import { formatDateTime, formatInteger, formatPercent } from '../format';
import {
  Badge,
  Button,
  Card,
  EmptyState,
  ErrorNotice,
  Field,
  Loading,
  Modal,
  PageHeader,
  useLoad,
  useToast,
} from '../ui';
import { KeysTable, useKeyDialogs } from './keys';

const ADMIN = '/api/v2/admin';

interface OrganizationForm {
  id: string;
  name: string;
  monthlyTokenQuota: string;
  thresholdShares: string;
  hardQuota: boolean;
}

const emptyForm: OrganizationForm = {
  id: '',
  name: '',
  monthlyTokenQuota: '1000000',
  thresholdShares: '90, 100',
  hardQuota: true,
};

/** The form's percentages as the API's shares (90 -> 0.9). */
function settingsOf(form: OrganizationForm) {
  return {
    name: form.name.trim(),
    monthlyTokenQuota: Number(form.monthlyTokenQuota),
    thresholdShares: form.thresholdShares
      .split(/[,\s]+/)
      .filter(Boolean)
      .map((p) => Number(p) / 100),
    hardQuota: form.hardQuota,
  };
}

function OrganizationDialog(props: {
  editing?: Organization;
  open: boolean;
  onClose: () => void;
  onSaved: (org: Organization) => void;
}) {
  const [form, setForm] = useState<OrganizationForm>(emptyForm);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [opened, setOpened] = useState<Organization | undefined | null>(null);
  if (props.open && opened !== props.editing) {
    setOpened(props.editing);
    setError(undefined);
    setForm(
      props.editing
        ? {
            id: props.editing.id,
            name: props.editing.name,
            monthlyTokenQuota: String(props.editing.monthlyTokenQuota),
            thresholdShares: props.editing.thresholdShares
              .map((s) => String(+(s * 100).toFixed(2)))
              .join(', '),
            hardQuota: props.editing.hardQuota,
          }
        : emptyForm,
    );
  }
  const close = () => {
    setOpened(null);
    props.onClose();
  };
  const set = (patch: Partial<OrganizationForm>) => setForm({ ...form, ...patch });
  return (
    <Modal
      title={props.editing ? `Edit ${props.editing.name}` : 'Create an organization'}
      open={props.open}
      onClose={close}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button variant="primary" type="submit" form="organization-form" busy={busy}>
            {props.editing ? 'Save' : 'Create'}
          </Button>
        </>
      }
    >
      <form
        id="organization-form"
        class="form-grid"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            const saved = props.editing
              ? await api<Organization>('PATCH', `${ADMIN}/organizations/${props.editing.id}`, {
                  body: settingsOf(form),
                })
              : await post<Organization>(`${ADMIN}/organizations`, {
                  id: form.id.trim(),
                  ...settingsOf(form),
                });
            props.onSaved(saved);
            close();
          } catch (e) {
            setError(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        {!props.editing && (
          <Field id="org-id" label="Id" hint="A slug: lower-case letters, digits and dashes.">
            <input
              id="org-id"
              required
              value={form.id}
              onInput={(e) => set({ id: e.currentTarget.value })}
            />
          </Field>
        )}
        <Field id="org-name" label="Name">
          <input
            id="org-name"
            required
            value={form.name}
            onInput={(e) => set({ name: e.currentTarget.value })}
          />
        </Field>
        <Field
          id="org-quota"
          label="Monthly token quota"
          hint="Input and output tokens per UTC month."
        >
          <input
            id="org-quota"
            type="number"
            min={1}
            required
            value={form.monthlyTokenQuota}
            onInput={(e) => set({ monthlyTokenQuota: e.currentTarget.value })}
          />
        </Field>
        <Field
          id="org-thresholds"
          label="usage_threshold marks (% of the quota)"
          hint="Comma-separated, e.g. 80, 90, 100."
        >
          <input
            id="org-thresholds"
            value={form.thresholdShares}
            onInput={(e) => set({ thresholdShares: e.currentTarget.value })}
          />
        </Field>
        <label class="checkbox">
          <input
            type="checkbox"
            checked={form.hardQuota}
            onChange={(e) => set({ hardQuota: e.currentTarget.checked })}
          />
          Hard quota: refuse calls beyond it (429 quota_exceeded)
        </label>
        <ErrorNotice error={error} />
      </form>
    </Modal>
  );
}

function OrganizationKeys(props: { organization: Organization; toast: (m: string) => void }) {
  const path = `${ADMIN}/organizations/${encodeURIComponent(props.organization.id)}/keys`;
  const keys = useLoad(() => get<{ keys: ApiKey[] }>(path), [path]);
  const { dialogs, create, revoke } = useKeyDialogs({
    issue: (name) => post(path, { name }),
    revoke: (keyId) => post(`${ADMIN}/keys/${encodeURIComponent(keyId)}/revoke`, {}),
    changed: keys.reload,
    toast: props.toast,
  });
  return (
    <Card
      title={`Keys of ${props.organization.name}`}
      actions={
        <Button variant="primary" size="sm" onClick={create}>
          Issue key
        </Button>
      }
    >
      <ErrorNotice error={keys.error} />
      {keys.data ? <KeysTable keys={keys.data.keys} onRevoke={revoke} /> : <Loading />}
      {dialogs}
    </Card>
  );
}

export function AdminPage() {
  const orgs = useLoad(() => get<{ organizations: Organization[] }>(`${ADMIN}/organizations`));
  const [selected, setSelected] = useState<string>();
  const [editing, setEditing] = useState<Organization | undefined>();
  const [dialogOpen, setDialogOpen] = useState(false);
  const [toastView, toast] = useToast();
  const list = orgs.data?.organizations ?? [];
  const current = list.find((o) => o.id === selected) ?? list[0];
  return (
    <>
      <PageHeader
        title="Organizations"
        description="Every organization on this gateway: its monthly quota, usage_threshold marks, rate limits and keys."
        actions={
          <Button
            variant="primary"
            onClick={() => {
              setEditing(undefined);
              setDialogOpen(true);
            }}
          >
            Create organization
          </Button>
        }
      />
      <ErrorNotice error={orgs.error} />
      <Card title="Organizations" subtitle={orgs.data ? `${list.length} in all` : undefined}>
        {!orgs.data ? (
          <Loading />
        ) : list.length === 0 ? (
          <EmptyState title="No organizations yet" />
        ) : (
          <div class="table-wrap">
            <table class="table" data-testid="organizations-table">
              <caption class="sr-only">Organizations</caption>
              <thead>
                <tr>
                  <th scope="col">Organization</th>
                  <th scope="col" class="num">
                    Monthly quota
                  </th>
                  <th scope="col">Thresholds</th>
                  <th scope="col">Quota</th>
                  <th scope="col" class="num">
                    Requests / min
                  </th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((org) => (
                  <tr key={org.id} class={org.id === current?.id ? 'selected' : ''}>
                    <td>
                      <button
                        type="button"
                        class="link-btn"
                        aria-pressed={org.id === current?.id}
                        onClick={() => setSelected(org.id)}
                      >
                        {org.name}
                      </button>
                      <div class="muted small">
                        <code>{org.id}</code>
                      </div>
                    </td>
                    <td class="num">{formatInteger(org.monthlyTokenQuota)}</td>
                    <td>{org.thresholdShares.map((s) => formatPercent(s, 0)).join(', ')}</td>
                    <td>
                      {org.hardQuota ? (
                        <Badge tone="blue">Hard</Badge>
                      ) : (
                        <Badge tone="gray">Soft</Badge>
                      )}
                    </td>
                    <td class="num">{formatInteger(org.rateLimits.requestsPerMinute)}</td>
                    <td>{formatDateTime(org.createdAt)}</td>
                    <td class="actions">
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={`Edit ${org.name}`}
                        onClick={() => {
                          setEditing(org);
                          setDialogOpen(true);
                        }}
                      >
                        Edit
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      {current && <OrganizationKeys key={current.id} organization={current} toast={toast} />}
      <OrganizationDialog
        open={dialogOpen}
        editing={editing}
        onClose={() => setDialogOpen(false)}
        onSaved={(org) => {
          toast(`${org.name} saved`);
          setSelected(org.id);
          orgs.reload();
        }}
      />
      {toastView}
    </>
  );
}
