import { useState } from 'preact/hooks';
import { api, get, post, type ApiKey, type KeyScope, type Team, type UsageReport } from '../api';
import {
  BudgetFields,
  budgetFieldOf,
  budgetFormOf,
  budgetOf,
  describeBudget,
  positiveCost,
  type BudgetForm,
} from '../budget';
import { formatCost, formatDateTime, formatInteger, isoFromLocal, localInputOf } from '../format';
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
  type FieldRule,
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

/** What a key may call and spend, in words: one line per scope or budget it has. */
export function keyLimits(key: ApiKey, teamName: (teamId: string) => string): string[] {
  const lines: string[] = [];
  if (key.models) lines.push(`models: ${key.models.join(', ')}`);
  if (key.routes) lines.push(`routes: ${key.routes.join(', ')}`);
  if (key.expiresAt) lines.push(`expires ${formatDateTime(key.expiresAt)}`);
  if (key.teamId) lines.push(`team: ${teamName(key.teamId)}`);
  if (key.budget) lines.push(`budget: ${describeBudget(key.budget)}`);
  if (key.endUserBudget) lines.push(`each end user: ${describeBudget(key.endUserBudget)}`);
  if (key.cache)
    lines.push(
      `cache: ${formatInteger(key.cache.maxAgeSeconds)} s${
        key.cache.semanticThreshold !== undefined
          ? `, by meaning from ${key.cache.semanticThreshold}`
          : ''
      }`,
    );
  return lines;
}

/** Keys of one organization: the organization's own (paths under /api/v2/keys) or, for the admin, any. */
export function KeysTable(props: {
  keys: ApiKey[];
  onRevoke: (key: ApiKey) => void;
  onRotate: (key: ApiKey) => void;
  /** Scopes and budgets are edited (the organization's own keys). */
  onEdit?: (key: ApiKey) => void;
  teams?: Team[];
  /** The month's usage per key id, when the page has the report. */
  usage?: UsageReport['byKey'];
}) {
  if (props.keys.length === 0) return <EmptyState title="No keys" />;
  const teamName = (teamId: string) =>
    props.teams?.find((t) => t.teamId === teamId)?.name ?? teamId;
  return (
    <DataTable
      label="API keys"
      testId="keys-table"
      columns={[
        'Name',
        'Key id',
        'Created',
        'Status',
        'Scopes and budgets',
        ...(props.usage ? [{ label: 'This month', num: true }] : []),
        { label: 'Actions', hidden: true },
      ]}
    >
      {props.keys.map((key) => {
        const state = keyState(key);
        const label = key.name || key.keyId;
        const limits = keyLimits(key, teamName);
        const used = props.usage?.find((u) => u.keyId === key.keyId);
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
            <td class="wide">
              {limits.length > 0 ? (
                <ul class="plain-list small">
                  {limits.map((line) => (
                    <li key={line}>{line}</li>
                  ))}
                </ul>
              ) : (
                <span class="muted">none</span>
              )}
            </td>
            {props.usage && (
              <td class="num">
                {used ? (
                  <>
                    {formatInteger(used.tokensInput + used.tokensOutput)} tokens
                    <div class="muted small">{formatCost(used.cost)}</div>
                  </>
                ) : (
                  <span class="muted">none</span>
                )}
              </td>
            )}
            <td class="actions">
              {props.onEdit && isWorking(key) && (
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => props.onEdit!(key)}
                  aria-label={`Edit ${label}`}
                >
                  Edit
                </Button>
              )}
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

/** A key's scopes, budgets and cache as its form holds them (lists comma-separated). */
interface KeySettingsForm {
  name: string;
  models: string;
  routes: string;
  expiresAt: string;
  teamId: string;
  budget: BudgetForm;
  endUserBudget: BudgetForm;
  cacheMaxAge: string;
  cacheThreshold: string;
}

function settingsFormOf(key: ApiKey): KeySettingsForm {
  return {
    name: key.name,
    models: key.models?.join(', ') ?? '',
    routes: key.routes?.join(', ') ?? '',
    expiresAt: key.expiresAt ? localInputOf(Date.parse(key.expiresAt)) : '',
    teamId: key.teamId ?? '',
    budget: budgetFormOf(key.budget),
    endUserBudget: budgetFormOf(key.endUserBudget),
    cacheMaxAge: key.cache ? String(key.cache.maxAgeSeconds) : '',
    cacheThreshold: key.cache?.semanticThreshold?.toString() ?? '',
  };
}

const listOf = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The PATCH body: every setting, null where the form leaves it empty (which removes it). */
function scopeOf(form: KeySettingsForm): { [K in keyof KeyScope]: KeyScope[K] | null } & {
  name: string;
} {
  const models = listOf(form.models);
  const routes = listOf(form.routes);
  const maxAge = form.cacheMaxAge.trim();
  const threshold = form.cacheThreshold.trim();
  return {
    name: form.name.trim(),
    models: models.length ? models : null,
    routes: routes.length ? routes : null,
    expiresAt: form.expiresAt ? isoFromLocal(form.expiresAt) : null,
    teamId: form.teamId || null,
    budget: budgetOf(form.budget),
    endUserBudget: budgetOf(form.endUserBudget),
    cache: maxAge
      ? {
          maxAgeSeconds: Number(maxAge),
          ...(threshold && { semanticThreshold: Number(threshold) }),
        }
      : null,
  };
}

const SCOPE_FIELDS: Record<string, string> = {
  name: 'key-edit-name',
  models: 'key-models',
  routes: 'key-routes',
  expiresAt: 'key-expires',
  teamId: 'key-team',
  cache: 'key-cache-age',
};

/** The field showing an API error detail: `/models/0` at the models, `/budget/cost` at its cost. */
function fieldOfScope(pointer: string): string | undefined {
  if (pointer === '/cache/semanticThreshold') return 'key-cache-threshold';
  return (
    budgetFieldOf(pointer, 'budget', 'key-budget') ??
    budgetFieldOf(pointer, 'endUserBudget', 'key-end-user') ??
    SCOPE_FIELDS[pointer.split('/')[1] ?? '']
  );
}

/** Each comma-separated item must match: the words name the first that does not. */
function eachRule(pattern: RegExp, words: string): FieldRule {
  return (value) => {
    const bad = listOf(value).find((item) => !pattern.test(item));
    return bad ? `"${bad}": ${words}` : '';
  };
}

/** The same patterns as the API's schema (services/gateway/src/schemas/admin.ts). */
const SCOPE_RULES: Record<string, FieldRule> = {
  'key-models': eachRule(
    /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/u,
    'a model id or alias starts with a letter or digit, then letters, digits and . _ : / -',
  ),
  'key-routes': eachRule(/^\/[\x21-\x7e]*$/u, 'a route is a path starting with /, e.g. /v1/*'),
  'key-budget-cost': positiveCost,
  'key-end-user-cost': positiveCost,
};

/**
 * A key's scopes (models, routes, expiry), team, budgets and response cache, changed with PATCH:
 * an emptied field removes that limit.
 */
function KeySettingsDialog(props: {
  subject: ApiKey | undefined;
  teams: Team[];
  onClose: () => void;
  onSaved: (key: ApiKey) => void;
}) {
  const [form, setForm] = useState<KeySettingsForm>();
  const [opened, setOpened] = useState<ApiKey>();
  const submit = useForm(
    async () => {
      const saved = await api<ApiKey>(
        'PATCH',
        `/api/v2/keys/${encodeURIComponent(props.subject!.keyId)}`,
        { body: scopeOf(form!) },
      );
      props.onSaved(saved);
      close();
    },
    {
      fieldOf: fieldOfScope,
      rules: {
        ...SCOPE_RULES,
        'key-cache-threshold': (value) =>
          value.trim() && !form?.cacheMaxAge.trim() ? 'Set how long answers are kept first.' : '',
      },
    },
  );
  if (props.subject && opened !== props.subject) {
    setOpened(props.subject);
    submit.reset();
    setForm(settingsFormOf(props.subject));
  }
  const close = () => {
    setOpened(undefined);
    props.onClose();
  };
  const set = (patch: Partial<KeySettingsForm>) => setForm({ ...form!, ...patch });
  const { errors } = submit;
  const label = props.subject ? props.subject.name || props.subject.keyId : '';
  return (
    <Modal
      title={`Edit ${label}`}
      open={props.subject !== undefined}
      onClose={close}
      wide
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button variant="primary" type="submit" form="key-settings" busy={submit.busy}>
            Save
          </Button>
        </>
      }
    >
      {form && (
        <form id="key-settings" class="form-grid" onSubmit={submit.onSubmit} noValidate>
          <p class="muted">
            Each field left empty sets no limit. A key with models or routes cannot manage keys or
            teams. Changes apply on every gateway replica within seconds.
          </p>
          <Field id="key-edit-name" label="Name" error={errors['key-edit-name']}>
            <input
              id="key-edit-name"
              maxLength={100}
              value={form.name}
              onInput={(e) => set({ name: e.currentTarget.value })}
            />
          </Field>
          <div class="form-row">
            <Field
              id="key-models"
              label="Models"
              hint="Model ids or aliases, separated by commas: any other model is refused (403)."
              error={errors['key-models']}
            >
              <input
                id="key-models"
                spellcheck={false}
                value={form.models}
                onInput={(e) => set({ models: e.currentTarget.value })}
              />
            </Field>
            <Field
              id="key-routes"
              label="Routes"
              hint="Paths, * matching anything, e.g. /v1/*: any other path is refused (403)."
              error={errors['key-routes']}
            >
              <input
                id="key-routes"
                spellcheck={false}
                value={form.routes}
                onInput={(e) => set({ routes: e.currentTarget.value })}
              />
            </Field>
          </div>
          <div class="form-row">
            <Field
              id="key-expires"
              label="Expires"
              hint="In your browser's time zone; then calls get 401 key_expired."
              error={errors['key-expires']}
            >
              <input
                id="key-expires"
                type="datetime-local"
                value={form.expiresAt}
                onInput={(e) => set({ expiresAt: e.currentTarget.value })}
              />
            </Field>
            <Field
              id="key-team"
              label="Team"
              hint="The team's budget applies to this key's calls too."
              error={errors['key-team']}
            >
              <select
                id="key-team"
                value={form.teamId}
                onChange={(e) => set({ teamId: e.currentTarget.value })}
              >
                <option value="">No team</option>
                {props.teams.map((team) => (
                  <option key={team.teamId} value={team.teamId}>
                    {team.name}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <BudgetFields
            idPrefix="key-budget"
            legend="Budget"
            hint="All of this key's calls; beyond it calls get 429 budget_exceeded until the period ends."
            value={form.budget}
            onChange={(budget) => set({ budget })}
            errors={errors}
          />
          <BudgetFields
            idPrefix="key-end-user"
            legend="Budget of each end user"
            hint="For each user (/v1) or user_id (assistants) the calls name, separately."
            value={form.endUserBudget}
            onChange={(endUserBudget) => set({ endUserBudget })}
            errors={errors}
          />
          <div class="form-row">
            <Field
              id="key-cache-age"
              label="Cache answers for (seconds)"
              hint="An equal request within this time is answered from the cache."
              error={errors['key-cache-age']}
            >
              <input
                id="key-cache-age"
                type="number"
                min={1}
                max={2_592_000}
                step={1}
                value={form.cacheMaxAge}
                onInput={(e) => set({ cacheMaxAge: e.currentTarget.value })}
              />
            </Field>
            <Field
              id="key-cache-threshold"
              label="Similarity threshold"
              hint="0.5 to 1: also answer requests this similar in meaning. Empty: exact matches."
              error={errors['key-cache-threshold']}
            >
              <input
                id="key-cache-threshold"
                type="number"
                min={0.5}
                max={1}
                step={0.01}
                value={form.cacheThreshold}
                onInput={(e) => set({ cacheThreshold: e.currentTarget.value })}
              />
            </Field>
          </div>
          <FormNotice form={submit} title="The key was not changed" />
        </form>
      )}
    </Modal>
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

/** The month's usage per end user the calls named (`user` on /v1, `user_id` on the assistants). */
function EndUsersCard(props: { usage: UsageReport | undefined }) {
  const rows = props.usage?.byEndUser ?? [];
  return (
    <Card
      title="End users this month"
      subtitle="Calls that named a user (/v1) or user_id (assistants), most tokens first; an end-user budget counts each separately."
    >
      {rows.length === 0 ? (
        <EmptyState title="No calls named an end user this month" />
      ) : (
        <DataTable
          label="Usage by end user"
          testId="end-users-table"
          columns={[
            'End user',
            { label: 'Calls', num: true },
            { label: 'Tokens', num: true },
            { label: 'Cost', num: true },
          ]}
        >
          {rows.map((row) => (
            <tr key={row.endUser}>
              <td>
                <code>{row.endUser}</code>
              </td>
              <td class="num">{formatInteger(row.calls)}</td>
              <td class="num">{formatInteger(row.tokensInput + row.tokensOutput)}</td>
              <td class="num">{formatCost(row.cost)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

export function KeysPage() {
  const keys = useLoad(() => get<{ keys: ApiKey[] }>('/api/v2/keys'));
  const teams = useLoad(() => get<{ teams: Team[] }>('/api/v2/teams'));
  const usage = useLoad(() => get<UsageReport>('/api/v2/usage'));
  const [editing, setEditing] = useState<ApiKey>();
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
        description="Keys authenticate calls as this organization: send one as Authorization: X-API-Key <key>. Only a hash is stored; a key is shown once, when created or rotated. Each key may be limited to some models and routes, expire, belong to a team and have budgets."
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
          <KeysTable
            keys={list}
            onRevoke={revoke}
            onRotate={rotate}
            onEdit={setEditing}
            teams={teams.data?.teams}
            usage={usage.data?.byKey}
          />
        ) : (
          keys.loading && <Loading />
        )}
      </Card>
      <EndUsersCard usage={usage.data} />
      <KeySettingsDialog
        subject={editing}
        teams={teams.data?.teams ?? []}
        onClose={() => setEditing(undefined)}
        onSaved={(key) => {
          toast(`Key ${key.name || key.keyId} saved`);
          keys.reload();
        }}
      />
      {dialogs}
      {toastView}
    </>
  );
}
