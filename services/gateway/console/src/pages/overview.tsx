import { useState } from 'preact/hooks';
import { get, type Organization, type UsageReport, type UsageTotals } from '../api';
import { BarChart, DoughnutChart } from '../charts';
import { formatCompact, formatCost, formatDay, formatInteger, formatPercent } from '../format';
import {
  Card,
  EmptyState,
  ErrorNotice,
  Loading,
  PageHeader,
  DataTable,
  Stat,
  useLoad,
} from '../ui';

type Metric = 'calls' | 'tokens' | 'cost';

const METRICS: Array<{ id: Metric; label: string }> = [
  { id: 'calls', label: 'Calls' },
  { id: 'tokens', label: 'Tokens' },
  { id: 'cost', label: 'Cost' },
];

/** Every day of the period up to today (or its end), so days without calls show as zero. */
function daysOf(report: UsageReport): string[] {
  const days: string[] = [];
  const start = new Date(`${report.periodStart.slice(0, 10)}T00:00:00Z`);
  const end = new Date(Math.min(Date.now(), Date.parse(report.periodEnd) - 1));
  for (let d = start; d <= end; d = new Date(d.getTime() + 86_400_000))
    days.push(d.toISOString().slice(0, 10));
  return days;
}

function QuotaBar(props: { report: UsageReport }) {
  const { quota, used, thresholdShares } = props.report;
  const share = quota > 0 ? used / quota : 0;
  const reached = thresholdShares.filter((t) => share >= t);
  const tone = share >= 1 ? 'danger' : reached.length > 0 ? 'warn' : 'ok';
  // The bar spans 0..max(100 %, highest mark), so a mark above 100 % (notify-only quotas) shows too.
  const span = Math.max(1, ...thresholdShares, share);
  return (
    <div class="quota">
      <div
        class={`quota-track quota-${tone}`}
        role="meter"
        aria-label="Monthly token quota used"
        aria-valuemin={0}
        aria-valuemax={quota}
        aria-valuenow={Math.min(used, quota)}
        aria-valuetext={`${formatInteger(used)} of ${formatInteger(quota)} tokens (${formatPercent(share)})`}
      >
        <div class="quota-fill" style={{ width: `${Math.min(share / span, 1) * 100}%` }} />
        {thresholdShares.map((t) => (
          <div
            key={t}
            class={`quota-mark ${share >= t ? 'quota-mark-reached' : ''}`}
            style={{ left: `${(t / span) * 100}%` }}
            title={`usage_threshold at ${formatPercent(t)}`}
          >
            <span>{formatPercent(t, 0)}</span>
          </div>
        ))}
      </div>
      <div class="quota-legend">
        <span>
          <strong>{formatInteger(used)}</strong> of {formatInteger(quota)} tokens used
        </span>
        <span>{formatInteger(Math.max(0, props.report.remaining))} left</span>
      </div>
      <p class="muted small">
        usage_threshold webhooks fire at{' '}
        {thresholdShares.map((t) => formatPercent(t, 0)).join(', ')} of the quota
        {reached.length > 0 && <> ({reached.map((t) => formatPercent(t, 0)).join(', ')} reached)</>}
        .{' '}
        {props.report.hardQuota
          ? 'The quota is hard: a call is refused (429 quota_exceeded) when its estimate, its input plus the output it may write, does not fit in what is left, so calls can be refused before 100%.'
          : 'The quota is soft: calls beyond it are served and notified.'}
      </p>
    </div>
  );
}

export function OverviewPage() {
  const usage = useLoad(() => get<UsageReport>('/api/v2/usage?days=31'));
  const org = useLoad(() => get<Organization>('/api/v2/organization'));
  const report = usage.data;
  return (
    <>
      <PageHeader
        title="Overview"
        description={
          report
            ? `Usage for ${monthOf(report)} (UTC), updated as calls are metered.`
            : 'Usage for the current month.'
        }
      />
      <ErrorNotice error={usage.error ?? org.error} />
      {!report && usage.loading && <Loading />}
      {report && (
        <UsageReportView
          report={report}
          organization={org.data ? `${org.data.name} (${org.data.id})` : undefined}
        />
      )}
    </>
  );
}

export function monthOf(report: UsageReport): string {
  return new Date(report.periodStart).toLocaleDateString('en', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** What each refusal reason means, said where the refusals are shown. */
export const REFUSAL_REASONS: Record<
  string,
  { label: string; explanation: string; color: string }
> = {
  quota: {
    label: 'Monthly quota',
    color: '#dc2626',
    explanation:
      'the call’s estimate (its input plus the output it may write: max_length, or the gateway’s default) did not fit in what was left of the hard quota',
  },
  request_rate: {
    label: 'Requests per minute',
    color: '#d97706',
    explanation: 'the key made more calls in a minute than the organization’s rate limit allows',
  },
  token_rate: {
    label: 'Tokens per minute',
    color: '#7c3aed',
    explanation: 'the key’s calls of the last minute would have gone over its tokens per minute',
  },
  budget: {
    label: 'Budget',
    color: '#0891b2',
    explanation: 'a key’s, team’s or end user’s budget was used up',
  },
};

function reasonLabel(reason: string): string {
  return REFUSAL_REASONS[reason]?.label ?? reason;
}

/** One organization's month: stats, quota, refusals, usage per day, per model and per endpoint. */
export function UsageReportView(props: { report: UsageReport; organization?: string }) {
  const { report } = props;
  const [metric, setMetric] = useState<Metric>('tokens');
  const today = new Date().toISOString().slice(0, 10);
  const refusedToday = report.refused.daily
    .filter((d) => d.date === today)
    .reduce((n, d) => n + d.calls, 0);
  const quotaRefusals = report.refused.byReason.find((r) => r.reason === 'quota')?.calls ?? 0;
  return (
    <>
      <div class="stats">
        <Stat label="Calls" value={formatInteger(report.calls)} hint="this month" />
        <Stat
          label="Tokens"
          value={formatCompact(report.used)}
          hint={`${formatCompact(report.byModel.reduce((n, m) => n + m.tokensInput, 0))} in · ${formatCompact(report.byModel.reduce((n, m) => n + m.tokensOutput, 0))} out`}
        />
        <Stat label="Cost" value={formatCost(report.cost)} hint="at the models' list prices" />
        <Stat
          label="Quota left"
          value={formatPercent(report.quota ? Math.max(0, report.remaining) / report.quota : 0)}
          hint={
            quotaRefusals > 0
              ? `${formatCompact(Math.max(0, report.remaining))} tokens; calls refused for the quota: ${formatInteger(quotaRefusals)}`
              : `${formatCompact(Math.max(0, report.remaining))} tokens`
          }
          tone={
            report.remaining <= 0 || quotaRefusals > 0
              ? 'danger'
              : report.used / report.quota >= Math.min(...report.thresholdShares)
                ? 'warn'
                : 'default'
          }
        />
        <Stat
          label="Refused"
          value={formatInteger(report.refused.calls)}
          hint={`calls this month (429); today ${formatInteger(refusedToday)}`}
          tone={refusedToday > 0 ? 'danger' : report.refused.calls > 0 ? 'warn' : 'default'}
        />
      </div>
      <Card title="Monthly quota" id="quota" subtitle={props.organization}>
        <QuotaBar report={report} />
      </Card>
      <RefusedCalls report={report} />
      <DailyUsage report={report} metric={metric} setMetric={setMetric} />
      <div class="grid-2">
        <ModelUsage report={report} />
        <EndpointUsage report={report} />
      </div>
    </>
  );
}

/** Calls the gateway refused (429) before they ran: per day and reason, with what each reason means. */
function RefusedCalls(props: { report: UsageReport }) {
  const { refused } = props.report;
  const days = daysOf(props.report);
  const reasons = refused.byReason.map((r) => r.reason);
  const count = (day: string, reason: string) =>
    refused.daily.find((d) => d.date === day && d.reason === reason)?.calls ?? 0;
  const dayRows = [...new Set(refused.daily.map((d) => d.date))].sort().reverse();
  return (
    <Card
      title="Refused calls"
      id="refused"
      subtitle="Calls answered 429 before they ran, per day and reason: they used no tokens and are not in the usage below"
    >
      {refused.calls === 0 ? (
        <EmptyState title="No call was refused this month" />
      ) : (
        <>
          <BarChart
            labels={days.map(formatDay)}
            series={reasons.map((reason) => ({
              label: reasonLabel(reason),
              values: days.map((day) => count(day, reason)),
              color: REFUSAL_REASONS[reason]?.color,
            }))}
            stacked
            integers
            height={200}
            summary={`Refused calls per day: ${refused.byReason.map((r) => `${reasonLabel(r.reason)} ${r.calls}`).join(', ')}`}
          />
          <DataTable
            label="Refused calls per day and reason"
            testId="refused-calls"
            compact
            columns={[
              'Day',
              ...reasons.map((reason) => ({ label: reasonLabel(reason), num: true })),
            ]}
          >
            {dayRows.map((day) => (
              <tr key={day}>
                <td>{formatDay(day)}</td>
                {reasons.map((reason) => (
                  <td class="num" key={reason}>
                    {formatInteger(count(day, reason))}
                  </td>
                ))}
              </tr>
            ))}
            <tr>
              <th scope="row">This month</th>
              {refused.byReason.map((r) => (
                <td class="num" key={r.reason}>
                  <strong>{formatInteger(r.calls)}</strong>
                </td>
              ))}
            </tr>
          </DataTable>
          <ul class="reasons small muted">
            {reasons.map((reason) => (
              <li key={reason}>
                <strong>{reasonLabel(reason)}</strong>:{' '}
                {REFUSAL_REASONS[reason]?.explanation ?? 'refused by the gateway'}.
              </li>
            ))}
          </ul>
        </>
      )}
    </Card>
  );
}

function metricOf(
  bucket: { calls: number; tokensInput: number; tokensOutput: number; cost: number },
  metric: Metric,
) {
  return metric === 'calls'
    ? bucket.calls
    : metric === 'cost'
      ? bucket.cost
      : bucket.tokensInput + bucket.tokensOutput;
}

function DailyUsage(props: {
  report: UsageReport;
  metric: Metric;
  setMetric: (m: Metric) => void;
}) {
  const { report, metric } = props;
  const days = daysOf(report);
  const byDay = new Map(report.daily.map((d) => [d.date, d]));
  const zero = { calls: 0, tokensInput: 0, tokensOutput: 0, cost: 0 };
  const rows = days.map((day) => ({ day, ...(byDay.get(day) ?? zero) }));
  const format = metric === 'cost' ? formatCost : formatCompact;
  const series =
    metric === 'tokens'
      ? [
          { label: 'Input tokens', values: rows.map((r) => r.tokensInput) },
          { label: 'Output tokens', values: rows.map((r) => r.tokensOutput), color: '#a5b4fc' },
        ]
      : [
          {
            label: metric === 'calls' ? 'Calls' : 'Cost',
            values: rows.map((r) => metricOf(r, metric)),
          },
        ];
  const total = rows.reduce((n, r) => n + metricOf(r, metric), 0);
  return (
    <Card
      title="Usage per day"
      id="daily"
      subtitle={`${METRICS.find((m) => m.id === metric)!.label} per day this month`}
      actions={
        <div class="segmented" role="group" aria-label="Metric">
          {METRICS.map((m) => (
            <button
              key={m.id}
              type="button"
              aria-pressed={metric === m.id}
              onClick={() => props.setMetric(m.id)}
            >
              {m.label}
            </button>
          ))}
        </div>
      }
    >
      {report.calls === 0 ? (
        <EmptyState title="No calls yet this month">
          Make a call with this organization's key (try the Playground) and it shows here.
        </EmptyState>
      ) : (
        <BarChart
          labels={rows.map((r) => formatDay(r.day))}
          series={series}
          stacked
          format={format}
          summary={`${METRICS.find((m) => m.id === metric)!.label} per day: ${format(total)} in total over ${rows.length} days`}
        />
      )}
    </Card>
  );
}

/** The numbers behind a chart: calls, tokens and cost per model or endpoint. */
function UsageTable(props: {
  name: string;
  testId?: string;
  rows: Array<UsageTotals & { key: string }>;
}) {
  return (
    <DataTable
      label={`Usage by ${props.name.toLowerCase()}`}
      testId={props.testId}
      compact
      columns={[
        props.name,
        { label: 'Calls', num: true },
        { label: 'Tokens', num: true },
        { label: 'Cost', num: true },
      ]}
    >
      {props.rows.map((row) => (
        <tr key={row.key}>
          <td>
            <code>{row.key}</code>
          </td>
          <td class="num">{formatInteger(row.calls)}</td>
          <td class="num">{formatInteger(row.tokensInput + row.tokensOutput)}</td>
          <td class="num">{formatCost(row.cost)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function ModelUsage(props: { report: UsageReport }) {
  const models = [...props.report.byModel].sort(
    (a, b) => b.tokensInput + b.tokensOutput - (a.tokensInput + a.tokensOutput),
  );
  return (
    <Card title="By model" id="models" subtitle="Tokens, calls and cost per model this month">
      {models.length === 0 ? (
        <EmptyState title="No model used yet" />
      ) : (
        <>
          <DoughnutChart
            labels={models.map((m) => m.model)}
            values={models.map((m) => m.tokensInput + m.tokensOutput)}
            format={(n) => `${formatInteger(n)} tokens`}
            summary={`Tokens by model: ${models.map((m) => `${m.model} ${formatInteger(m.tokensInput + m.tokensOutput)}`).join(', ')}`}
          />
          <UsageTable
            name="Model"
            testId="usage-by-model"
            rows={models.map((m) => ({ key: m.model, ...m }))}
          />
        </>
      )}
    </Card>
  );
}

function EndpointUsage(props: { report: UsageReport }) {
  const endpoints = [...props.report.byEndpoint].sort((a, b) => b.calls - a.calls);
  return (
    <Card title="By endpoint" id="endpoints" subtitle="Calls per API route this month">
      {endpoints.length === 0 ? (
        <EmptyState title="No calls yet" />
      ) : (
        <>
          <BarChart
            horizontal
            integers
            height={Math.max(140, endpoints.length * 34 + 40)}
            labels={endpoints.map((e) => e.endpoint)}
            series={[{ label: 'Calls', values: endpoints.map((e) => e.calls) }]}
            summary={`Calls by endpoint: ${endpoints.map((e) => `${e.endpoint} ${e.calls}`).join(', ')}`}
          />
          <UsageTable name="Endpoint" rows={endpoints.map((e) => ({ key: e.endpoint, ...e }))} />
        </>
      )}
    </Card>
  );
}
