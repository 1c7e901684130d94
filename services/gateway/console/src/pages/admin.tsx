import { useState } from 'preact/hooks';
import {
  get,
  post,
  api,
  type ApiKey,
  type ErrorDetail,
  type Organization,
  type UsageReport,
} from '../api';
import { formatDateTime, formatInteger, formatPercent } from '../format';
import { ORGANIZATION_ID, PATTERN_WORDS } from '../../../src/schemas/common';
import {
  Badge,
  Button,
  Card,
  EmptyState,
  ErrorNotice,
  Field,
  FormNotice,
  Loading,
  Modal,
  PageHeader,
  DataTable,
  patternRule,
  useForm,
  useLoad,
  useToast,
  type FieldRule,
} from '../ui';
import { KeysTable, useKeyDialogs, type IssuedKey, type RotatedKey } from './keys';
import { monthOf, UsageReportView } from './overview';

const ADMIN = '/api/v2/admin';
/** The highest usage_threshold mark the API takes: 10 times the quota. */
const MAX_MARK_PERCENT = 1000;

interface OrganizationForm {
  id: string;
  name: string;
  monthlyTokenQuota: string;
  thresholdPercents: string;
  hardQuota: boolean;
  requestsPerMinute: string;
  tokensPerMinute: string;
  timeZone: string;
}

const emptyForm: OrganizationForm = {
  id: '',
  name: '',
  monthlyTokenQuota: '1000000',
  thresholdPercents: '90, 100',
  hardQuota: true,
  requestsPerMinute: '',
  tokensPerMinute: '',
  timeZone: 'UTC',
};

/** The per-key rate limits, each a field of the form. */
const RATE_FIELDS = [
  { id: 'org-rpm', label: 'Requests per minute', setting: 'requestsPerMinute' },
  { id: 'org-tpm', label: 'Tokens per minute', setting: 'tokensPerMinute' },
] as const;

/** The time zones this browser knows (the API takes any IANA zone). */
const TIME_ZONES: string[] = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
})();

/** "80, 90,100" -> [80, 90, 100]. */
function percentsOf(text: string): number[] {
  return text
    .split(/[,\s]+/)
    .filter(Boolean)
    .map((p) => Number(p.replace(/%$/, '')));
}

/** The marks field, checked in the unit it is typed in: percent of the quota. */
const checkPercents: FieldRule = (text) => {
  const percents = percentsOf(text);
  if (percents.length === 0) return 'Give at least one mark, e.g. 90, 100.';
  if (percents.length > 10) return 'At most 10 marks.';
  const bad = percents.find((p) => !Number.isFinite(p) || p <= 0 || p > MAX_MARK_PERCENT);
  return bad === undefined
    ? ''
    : `Each mark is a percentage of the quota above 0 and at most ${MAX_MARK_PERCENT}%.`;
};

/** The form's values as the API's settings: percentages as shares (90 -> 0.9). */
function settingsOf(form: OrganizationForm, editing: Organization | undefined) {
  const rateLimits: Record<string, number> = {};
  if (form.requestsPerMinute) rateLimits.requestsPerMinute = Number(form.requestsPerMinute);
  if (form.tokensPerMinute) rateLimits.tokensPerMinute = Number(form.tokensPerMinute);
  return {
    name: form.name.trim(),
    monthlyTokenQuota: Number(form.monthlyTokenQuota),
    thresholdShares: percentsOf(form.thresholdPercents).map((p) => +(p / 100).toFixed(6)),
    hardQuota: form.hardQuota,
    ...(Object.keys(rateLimits).length > 0 && { rateLimits }),
    ...((editing || form.timeZone.trim()) && { timeZone: form.timeZone.trim() || 'UTC' }),
  };
}

/** The form field each setting of the API is shown at. */
const FIELDS: Record<string, string> = {
  '/id': 'org-id',
  '/name': 'org-name',
  '/monthlyTokenQuota': 'org-quota',
  '/thresholdShares': 'org-thresholds',
  '/hardQuota': 'org-hard',
  '/rateLimits/requestsPerMinute': 'org-rpm',
  '/rateLimits/tokensPerMinute': 'org-tpm',
  '/timeZone': 'org-timezone',
};

function fieldOfSetting(pointer: string): string | undefined {
  return FIELDS[pointer.replace(/^\/thresholdShares\/\d+$/, '/thresholdShares')];
}

/** The API speaks of marks as shares (0.9): the form speaks of them in percent. */
function describeSetting(detail: ErrorDetail): string {
  if (detail.field.startsWith('/thresholdShares'))
    return `Each mark is a percentage of the quota above 0 and at most ${MAX_MARK_PERCENT}% (at most 10 marks).`;
  return detail.reason;
}

function formOf(org: Organization): OrganizationForm {
  return {
    id: org.id,
    name: org.name,
    monthlyTokenQuota: String(org.monthlyTokenQuota),
    thresholdPercents: org.thresholdShares.map((s) => String(+(s * 100).toFixed(4))).join(', '),
    hardQuota: org.hardQuota,
    requestsPerMinute: String(org.rateLimits.requestsPerMinute),
    tokensPerMinute: String(org.rateLimits.tokensPerMinute),
    timeZone: org.timeZone ?? 'UTC',
  };
}

function OrganizationDialog(props: {
  editing?: Organization;
  open: boolean;
  onClose: () => void;
  onSaved: (org: Organization) => void;
}) {
  const [form, setForm] = useState<OrganizationForm>(emptyForm);
  const [opened, setOpened] = useState<Organization | undefined | null>(null);
  const submit = useForm(
    async () => {
      const saved = props.editing
        ? await api<Organization>('PATCH', `${ADMIN}/organizations/${props.editing.id}`, {
            body: settingsOf(form, props.editing),
          })
        : await post<Organization>(`${ADMIN}/organizations`, {
            id: form.id.trim(),
            ...settingsOf(form, undefined),
          });
      props.onSaved(saved);
      close();
    },
    {
      fieldOf: fieldOfSetting,
      describe: describeSetting,
      rules: {
        'org-id': patternRule(ORGANIZATION_ID.pattern, `Use ${ORGANIZATION_ID[PATTERN_WORDS]}.`),
        'org-thresholds': checkPercents,
      },
    },
  );
  if (props.open && opened !== props.editing) {
    setOpened(props.editing);
    submit.reset();
    setForm(props.editing ? formOf(props.editing) : emptyForm);
  }
  const close = () => {
    setOpened(null);
    props.onClose();
  };
  const set = (patch: Partial<OrganizationForm>) => setForm({ ...form, ...patch });
  const { errors } = submit;
  return (
    <Modal
      title={props.editing ? `Edit ${props.editing.name}` : 'Create an organization'}
      open={props.open}
      onClose={close}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button variant="primary" type="submit" form="organization-form" busy={submit.busy}>
            {props.editing ? 'Save' : 'Create'}
          </Button>
        </>
      }
    >
      <form id="organization-form" class="form-grid" onSubmit={submit.onSubmit} noValidate>
        {!props.editing && (
          <Field
            id="org-id"
            label="Id"
            hint="A slug: lower-case letters, digits and dashes."
            error={errors['org-id']}
          >
            <input
              id="org-id"
              required
              maxLength={64}
              value={form.id}
              onInput={(e) => set({ id: e.currentTarget.value })}
            />
          </Field>
        )}
        <Field id="org-name" label="Name" error={errors['org-name']}>
          <input
            id="org-name"
            required
            maxLength={200}
            value={form.name}
            onInput={(e) => set({ name: e.currentTarget.value })}
          />
        </Field>
        <Field
          id="org-quota"
          label="Monthly token quota"
          hint="Input and output tokens per UTC month."
          error={errors['org-quota']}
        >
          <input
            id="org-quota"
            type="number"
            min={1}
            step={1}
            required
            value={form.monthlyTokenQuota}
            onInput={(e) => set({ monthlyTokenQuota: e.currentTarget.value })}
          />
        </Field>
        <Field
          id="org-thresholds"
          label="usage_threshold marks (% of the quota)"
          hint="Comma-separated percentages, e.g. 80, 90, 100 (above 100% for soft quotas)."
          error={errors['org-thresholds']}
        >
          <input
            id="org-thresholds"
            inputMode="decimal"
            value={form.thresholdPercents}
            onInput={(e) => set({ thresholdPercents: e.currentTarget.value })}
          />
        </Field>
        <label class="checkbox">
          <input
            id="org-hard"
            type="checkbox"
            checked={form.hardQuota}
            onChange={(e) => set({ hardQuota: e.currentTarget.checked })}
          />
          Hard quota: refuse calls beyond it (429 quota_exceeded)
        </label>
        <div class="form-row">
          {RATE_FIELDS.map(({ id, label, setting }) => (
            <Field
              key={id}
              id={id}
              label={label}
              hint={props.editing ? 'Per API key.' : 'Per API key; empty: the gateway’s default.'}
              error={errors[id]}
            >
              <input
                id={id}
                type="number"
                min={1}
                step={1}
                required={!!props.editing}
                value={form[setting]}
                onInput={(e) => set({ [setting]: e.currentTarget.value })}
              />
            </Field>
          ))}
        </div>
        <Field
          id="org-timezone"
          label="Time zone"
          hint="An IANA zone: where assistants read “this weekend” and “next Friday”."
          error={errors['org-timezone']}
        >
          <input
            id="org-timezone"
            list="time-zones"
            autoComplete="off"
            value={form.timeZone}
            onInput={(e) => set({ timeZone: e.currentTarget.value })}
          />
        </Field>
        <datalist id="time-zones">
          {TIME_ZONES.map((zone) => (
            <option key={zone} value={zone} />
          ))}
        </datalist>
        <FormNotice form={submit} title="The organization was not saved" />
      </form>
    </Modal>
  );
}

function OrganizationKeys(props: { organization: Organization; toast: (m: string) => void }) {
  const path = `${ADMIN}/organizations/${encodeURIComponent(props.organization.id)}/keys`;
  const keys = useLoad(() => get<{ keys: ApiKey[] }>(path), [path]);
  const { dialogs, create, revoke, rotate } = useKeyDialogs({
    issue: (name) => post<IssuedKey>(path, { name }),
    revoke: (keyId) => post(`${ADMIN}/keys/${encodeURIComponent(keyId)}/revoke`, {}),
    rotate: (keyId, gracePeriodSeconds) =>
      post<RotatedKey>(`${ADMIN}/keys/${encodeURIComponent(keyId)}/rotate`, {
        gracePeriodSeconds,
      }),
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
      {keys.data ? (
        <KeysTable keys={keys.data.keys} onRevoke={revoke} onRotate={rotate} />
      ) : (
        <Loading />
      )}
      {dialogs}
    </Card>
  );
}

/** The organization's month as its own console shows it, read through the admin API. */
function OrganizationUsage(props: { organization: Organization }) {
  const path = `${ADMIN}/organizations/${encodeURIComponent(props.organization.id)}/usage?days=31`;
  const usage = useLoad(() => get<UsageReport>(path), [path]);
  return (
    <section class="admin-usage" aria-labelledby="admin-usage-title">
      <h2 id="admin-usage-title" class="section-title">
        Usage of {props.organization.name}
        {usage.data ? ` in ${monthOf(usage.data)} (UTC)` : ''}
      </h2>
      <ErrorNotice error={usage.error} />
      {usage.data ? (
        <UsageReportView report={usage.data} organization={props.organization.id} />
      ) : (
        usage.loading && <Loading />
      )}
    </section>
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
        description="Every organization on this gateway: its monthly quota, usage_threshold marks, rate limits, time zone, keys and usage."
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
          <DataTable
            label="Organizations"
            testId="organizations-table"
            columns={[
              'Organization',
              { label: 'Monthly quota', num: true },
              'Thresholds',
              'Quota',
              { label: 'Requests / min', num: true },
              { label: 'Tokens / min', num: true },
              'Time zone',
              'Created',
              { label: 'Actions', hidden: true },
            ]}
          >
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
                <td class="num">{formatInteger(org.rateLimits.tokensPerMinute)}</td>
                <td>{org.timeZone ?? 'UTC'}</td>
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
          </DataTable>
        )}
      </Card>
      {current && <OrganizationKeys key={current.id} organization={current} toast={toast} />}
      {current && <OrganizationUsage key={current.id} organization={current} />}
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
