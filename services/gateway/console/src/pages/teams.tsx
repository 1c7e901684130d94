import { useState } from 'preact/hooks';
import { api, get, post, type ApiKey, type Team, type UsageReport } from '../api';
import {
  BudgetFields,
  budgetFieldOf,
  budgetFormOf,
  budgetOf,
  describeBudget,
  NO_BUDGET,
  positiveCost,
  type BudgetForm,
} from '../budget';
import { formatCost, formatDateTime, formatInteger } from '../format';
import {
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
  useForm,
  useLoad,
  useToast,
} from '../ui';

const teamPath = (teamId: string) => `/api/v2/teams/${encodeURIComponent(teamId)}`;

/** Create a team, or rename one and change its budget (emptied limits remove the budget). */
function TeamDialog(props: {
  open: boolean;
  editing?: Team;
  onClose: () => void;
  onSaved: (team: Team) => void;
}) {
  const [name, setName] = useState('');
  const [budget, setBudget] = useState<BudgetForm>(NO_BUDGET);
  const [opened, setOpened] = useState<Team | undefined | null>(null);
  const submit = useForm(
    async () => {
      const limits = budgetOf(budget);
      const saved = props.editing
        ? await api<Team>('PATCH', teamPath(props.editing.teamId), {
            body: { name: name.trim(), budget: limits },
          })
        : await post<Team>('/api/v2/teams', {
            name: name.trim(),
            ...(limits && { budget: limits }),
          });
      props.onSaved(saved);
      close();
    },
    {
      fieldOf: (pointer) =>
        pointer === '/name' ? 'team-name' : budgetFieldOf(pointer, 'budget', 'team-budget'),
      rules: { 'team-budget-cost': positiveCost },
    },
  );
  if (props.open && opened !== props.editing) {
    setOpened(props.editing);
    submit.reset();
    setName(props.editing?.name ?? '');
    setBudget(budgetFormOf(props.editing?.budget));
  }
  const close = () => {
    setOpened(null);
    props.onClose();
  };
  return (
    <Modal
      title={props.editing ? `Edit ${props.editing.name}` : 'Create a team'}
      open={props.open}
      onClose={close}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button variant="primary" type="submit" form="team-form" busy={submit.busy}>
            {props.editing ? 'Save' : 'Create team'}
          </Button>
        </>
      }
    >
      <form id="team-form" class="form-grid" onSubmit={submit.onSubmit} noValidate>
        <Field
          id="team-name"
          label="Name"
          hint="e.g. search or support."
          error={submit.errors['team-name']}
        >
          <input
            id="team-name"
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <BudgetFields
          idPrefix="team-budget"
          legend="Budget"
          hint="The calls of all the team's keys together; beyond it they get 429 budget_exceeded until the period ends. Both limits empty: no budget."
          value={budget}
          onChange={setBudget}
          errors={submit.errors}
        />
        <FormNotice form={submit} title="The team was not saved" />
      </form>
    </Modal>
  );
}

export function TeamsPage() {
  const teams = useLoad(() => get<{ teams: Team[] }>('/api/v2/teams'));
  const keys = useLoad(() => get<{ keys: ApiKey[] }>('/api/v2/keys'));
  const usage = useLoad(() => get<UsageReport>('/api/v2/usage'));
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Team>();
  const [deleting, setDeleting] = useState<Team>();
  const [toastView, toast] = useToast();
  const list = teams.data?.teams ?? [];
  const members = (team: Team) => (keys.data?.keys ?? []).filter((k) => k.teamId === team.teamId);
  return (
    <>
      <PageHeader
        title="Teams"
        description="A team is a named group of the organization's keys with a budget: the calls of all its keys count against it together, beside each key's own. A key joins a team on the API keys page."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create team
          </Button>
        }
      />
      <ErrorNotice error={teams.error} />
      <Card
        title="Teams"
        subtitle={
          usage.data
            ? `This month's usage from ${formatDateTime(usage.data.periodStart)}; a budget's period may be shorter.`
            : undefined
        }
      >
        {!teams.data ? (
          teams.loading && <Loading />
        ) : list.length === 0 ? (
          <EmptyState title="No teams yet">Create one to give a group of keys a budget.</EmptyState>
        ) : (
          <DataTable
            label="Teams"
            testId="teams-table"
            columns={[
              'Name',
              'Team id',
              'Budget',
              'Keys',
              { label: 'This month', num: true },
              { label: 'Actions', hidden: true },
            ]}
          >
            {list.map((team) => {
              const used = usage.data?.byTeam.find((u) => u.teamId === team.teamId);
              const teamKeys = members(team);
              return (
                <tr key={team.teamId} data-team-id={team.teamId}>
                  <td>{team.name}</td>
                  <td>
                    <code>{team.teamId}</code>
                  </td>
                  <td>
                    {team.budget ? describeBudget(team.budget) : <span class="muted">none</span>}
                  </td>
                  <td>
                    {teamKeys.length > 0 ? (
                      teamKeys.map((k) => k.name || k.keyId).join(', ')
                    ) : (
                      <span class="muted">none</span>
                    )}
                  </td>
                  <td class="num">
                    {used ? (
                      <>
                        {formatInteger(used.tokensInput + used.tokensOutput)} tokens
                        <div class="muted small">
                          {formatInteger(used.calls)} calls, {formatCost(used.cost)}
                        </div>
                      </>
                    ) : (
                      <span class="muted">none</span>
                    )}
                  </td>
                  <td class="actions">
                    <Button
                      size="sm"
                      variant="ghost"
                      onClick={() => setEditing(team)}
                      aria-label={`Edit ${team.name}`}
                    >
                      Edit
                    </Button>
                    <Button
                      size="sm"
                      variant="ghost"
                      class="danger-text"
                      onClick={() => setDeleting(team)}
                      aria-label={`Delete ${team.name}`}
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
      <TeamDialog
        open={creating || editing !== undefined}
        editing={editing}
        onClose={() => {
          setCreating(false);
          setEditing(undefined);
        }}
        onSaved={(team) => {
          toast(`Team ${team.name} saved`);
          teams.reload();
        }}
      />
      <ConfirmDialog
        title="Delete this team?"
        subject={deleting}
        confirmLabel="Delete team"
        onClose={() => setDeleting(undefined)}
        onConfirm={async (team) => {
          await api('DELETE', teamPath(team.teamId));
          toast(`Team ${team.name} deleted`);
          teams.reload();
        }}
      >
        <p>
          <strong>{deleting?.name}</strong> (<code>{deleting?.teamId}</code>) and its budget are
          deleted. A team that still has keys is not: move them to another team or to none first.
        </p>
        {deleting && members(deleting).length > 0 && (
          <p data-testid="team-members">
            Its keys:{' '}
            {members(deleting).map((k, i) => (
              <span key={k.keyId}>
                {i > 0 && ', '}
                {k.name || 'unnamed'} <code>{k.keyId}</code>
              </span>
            ))}
          </p>
        )}
      </ConfirmDialog>
      {toastView}
    </>
  );
}
