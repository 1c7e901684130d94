import { useState } from 'preact/hooks';
import { get, type ApiKey, type UsageReport } from '../api';
import { formatCost, formatDateTime, formatInteger } from '../format';
import { Link } from '../router';
import {
  Badge,
  Button,
  Card,
  DataTable,
  EmptyState,
  ErrorNotice,
  Loading,
  PageHeader,
  useLoad,
  ShowMore,
  usePagedList,
} from '../ui';
import { REFUSAL_REASONS } from './overview';

/** One billed call, as GET /api/v2/usage/calls lists it. */
export interface UsageCall {
  id: string;
  time: string;
  requestId: string | null;
  keyId: string | null;
  endpoint: string;
  model: string;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
  outcome: 'succeeded' | 'failed' | null;
}

interface CallPage {
  calls: UsageCall[];
  next: string | null;
}

const PAGE_SIZE = 25;

/**
 * The request log: the organization's billed calls from the usage ledger, newest first, a page at
 * a time, by key; refused calls are counted (by reason), since the gateway counts them rather
 * than recording each.
 */
export function LogsPage() {
  const [keyId, setKeyId] = useState('');
  const keys = useLoad(() => get<{ keys: ApiKey[] }>('/api/v2/keys'));
  const usage = useLoad(() => get<UsageReport>('/api/v2/usage?days=1'));
  const list = usePagedList<UsageCall>(
    async (cursor) => {
      const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (keyId) query.set('keyId', keyId);
      if (cursor) query.set('before', cursor);
      const { calls, next } = await get<CallPage>(`/api/v2/usage/calls?${query}`);
      return { items: calls, next };
    },
    [keyId],
  );
  const { items: calls, page } = list;
  const reload = () => {
    list.restart();
    usage.reload();
  };
  const nameOf = new Map((keys.data?.keys ?? []).map((k) => [k.keyId, k.name]));
  const refused = usage.data?.refused;

  return (
    <>
      <PageHeader
        title="Request logs"
        description="Every billed call of this organization, newest first: when, the endpoint, the model, the key, tokens and cost, as the usage ledger recorded them."
        actions={<Button onClick={reload}>Reload</Button>}
      />
      <ErrorNotice error={page.error ?? keys.error} />
      <Card
        title="Calls"
        subtitle={
          calls.length
            ? `${formatInteger(calls.length)} shown${list.more ? ', older ones below' : ''}`
            : undefined
        }
      >
        <div class="toolbar">
          <div class="filters" role="group" aria-label="Filter calls">
            <label>
              <span>Key</span>
              <select value={keyId} onChange={(e) => setKeyId(e.currentTarget.value)}>
                <option value="">All keys</option>
                {(keys.data?.keys ?? []).map((k) => (
                  <option key={k.keyId} value={k.keyId}>
                    {k.name} ({k.keyId})
                  </option>
                ))}
              </select>
            </label>
          </div>
        </div>
        {!page.data && page.loading && calls.length === 0 ? (
          <Loading />
        ) : calls.length === 0 ? (
          <EmptyState title="No calls yet">
            {keyId
              ? 'This key has made no billed call.'
              : 'Billed calls appear here within a second or two of their answer.'}
          </EmptyState>
        ) : (
          <DataTable
            label="Billed calls"
            testId="calls-table"
            columns={[
              'Time',
              'Endpoint',
              'Model',
              'Key',
              { label: 'Tokens in', num: true },
              { label: 'Tokens out', num: true },
              { label: 'Cost', num: true },
              'Outcome',
              'Request id',
            ]}
          >
            {calls.map((call) => (
              <tr key={call.id}>
                <td class="nowrap">{formatDateTime(call.time)}</td>
                <td class="nowrap">
                  <code>{call.endpoint}</code>
                </td>
                <td class="nowrap">{call.model}</td>
                <td>
                  {call.keyId ? (
                    <>
                      <div class="nowrap">{nameOf.get(call.keyId) ?? 'a deleted key'}</div>
                      <code class="secondary small">{call.keyId}</code>
                    </>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
                <td class="num">{formatInteger(call.tokensInput)}</td>
                <td class="num">{formatInteger(call.tokensOutput)}</td>
                <td class="num">{formatCost(call.cost)}</td>
                <td>
                  {call.outcome === 'failed' ? (
                    <Badge tone="red">Failed</Badge>
                  ) : call.outcome === 'succeeded' ? (
                    <Badge tone="green">Succeeded</Badge>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
                <td>
                  <code class="small">{call.requestId ?? '—'}</code>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
        <ShowMore list={list} label="Show older calls" />
        <p class="muted small">
          A call that failed after the model spent tokens is billed and listed as failed; one that
          failed before is neither.
        </p>
      </Card>
      <Card
        title="Refused calls"
        subtitle="Calls answered 429 before they ran use nothing and are counted by reason, not listed one by one."
      >
        {!refused ? (
          usage.loading && <Loading />
        ) : refused.calls === 0 ? (
          <p class="muted">No call was refused this month.</p>
        ) : (
          <>
            <ul class="plain-list" data-testid="refused-by-reason">
              {refused.byReason.map((r) => (
                <li key={r.reason}>
                  <strong>{formatInteger(r.calls)}</strong>{' '}
                  {REFUSAL_REASONS[r.reason]?.label ?? r.reason}
                  {REFUSAL_REASONS[r.reason] && (
                    <span class="muted small">: {REFUSAL_REASONS[r.reason]!.explanation}</span>
                  )}
                </li>
              ))}
            </ul>
            <p class="muted small">
              By day on the <Link page="">overview</Link>.
            </p>
          </>
        )}
      </Card>
    </>
  );
}
