import { useState } from 'preact/hooks';
import { get, type Organization, type UsageReport, type UsageTotals } from '../api';
import { BarChart, DoughnutChart } from '../charts';
import { formatCompact, formatCost, formatDay, formatInteger, formatPercent } from '../format';
import { Card, EmptyState, ErrorNotice, Loading, PageHeader, Stat, useLoad } from '../ui';

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
          ? 'The quota is hard: calls beyond it are refused with 429 quota_exceeded.'
          : 'The quota is soft: calls beyond it are served and notified.'}
      </p>
    </div>
  );
}

export function OverviewPage() {
  const [metric, setMetric] = useState<Metric>('tokens');
  const usage = useLoad(() => get<UsageReport>('/api/v2/usage?days=31'));
  const org = useLoad(() => get<Organization>('/api/v2/organization'));
  const report = usage.data;

  return (
    <>
      <PageHeader
        title="Overview"
        description={
          report
            ? `Usage for ${new Date(report.periodStart).toLocaleDateString('en', { month: 'long', year: 'numeric', timeZone: 'UTC' })} (UTC), updated as calls are metered.`
            : 'Usage for the current month.'
        }
      />
      <ErrorNotice error={usage.error ?? org.error} />
      {!report && usage.loading && <Loading />}
      {report && (
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
              hint={`${formatCompact(Math.max(0, report.remaining))} tokens`}
              tone={
                report.remaining <= 0
                  ? 'danger'
                  : report.used / report.quota >= Math.min(...report.thresholdShares)
                    ? 'warn'
                    : 'default'
              }
            />
          </div>
          <Card
            title="Monthly quota"
            id="quota"
            subtitle={org.data ? `${org.data.name} (${org.data.id})` : undefined}
          >
            <QuotaBar report={report} />
          </Card>
          <DailyUsage report={report} metric={metric} setMetric={setMetric} />
          <div class="grid-2">
            <ModelUsage report={report} />
            <EndpointUsage report={report} />
          </div>
        </>
      )}
    </>
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
    <table class="table compact" data-testid={props.testId}>
      <caption class="sr-only">Usage by {props.name.toLowerCase()}</caption>
      <thead>
        <tr>
          <th scope="col">{props.name}</th>
          <th scope="col" class="num">
            Calls
          </th>
          <th scope="col" class="num">
            Tokens
          </th>
          <th scope="col" class="num">
            Cost
          </th>
        </tr>
      </thead>
      <tbody>
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
      </tbody>
    </table>
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
