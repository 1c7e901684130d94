import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import { ROOT, named, readText, render } from './render';

/** An expression as Prometheus sees it: Grafana's interval variables stand for a range. */
function asPromql(expr: string): string {
  return expr.replace(/\$__(rate_)?interval/g, '5m');
}

/** The PromQL syntax tree (Prometheus's own lezer grammar), its error count and the metric names it selects. */
export function parsePromql(expr: string): { errors: number; metrics: string[] } {
  const text = asPromql(expr);
  const metrics: string[] = [];
  let errors = 0;
  parser.parse(text).iterate({
    enter: (node) => {
      if (node.type.isError) errors++;
      if (node.name === 'VectorSelector') {
        const name = node.node.getChild('Identifier');
        if (name) metrics.push(text.slice(name.from, name.to));
      }
    },
  });
  return { errors, metrics };
}

/** Problems of one expression: syntax errors and metrics the services do not export. */
function expressionProblems(where: string, expr: string, exported: Set<string>): string[] {
  const { errors, metrics } = parsePromql(expr);
  const problems = metrics
    .filter((name) => !exported.has(name))
    .map((name) => `${where}: unknown metric ${name}`);
  if (errors > 0) problems.push(`${where}: PromQL syntax error in ${expr}`);
  if (metrics.length === 0) problems.push(`${where}: selects no metric`);
  return problems;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every series name the services define with prom-client (histograms with their suffixes) plus the process metrics. */
async function exportedNames(): Promise<Set<string>> {
  const names = new Set<string>();
  const roots = [
    'shared/src',
    ...readdirSync(path.join(ROOT, 'services')).map((s) => `services/${s}/src`),
  ];
  for (const file of roots.flatMap((root) => sourceFiles(path.join(ROOT, root)))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(
      /new (Counter|Gauge|Histogram|Summary)\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g,
    )) {
      const [, type, name] = match;
      names.add(name!);
      if (type === 'Histogram')
        for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    }
    // Gauges built by a helper that sums live sources (notification's summedGauge).
    for (const match of text.matchAll(/summedGauge\(\s*'([a-z_:][a-z0-9_:]*)'/g))
      names.add(match[1]!);
  }
  const processMetrics = new Registry();
  collectDefaultMetrics({ register: processMetrics });
  for (const metric of await processMetrics.getMetricsAsJSON()) names.add(metric.name);
  return names;
}

interface Rules {
  groups: Array<{ name: string; rules: Array<{ alert: string; expr: string }> }>;
}

function dashboardExpressions(): Array<{ where: string; expr: string }> {
  const dir = path.join(ROOT, 'deploy', 'grafana');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .flatMap((file) => {
      const dashboard = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
        panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
      };
      return dashboard.panels.flatMap((panel) =>
        panel.targets.map((target) => ({ where: `${file}: ${panel.title}`, expr: target.expr })),
      );
    });
}

describe('dashboards and alerts: valid PromQL naming only metrics the services export', () => {
  let exported: Set<string>;
  const rules = parseYaml(readText('deploy/prometheus/alerts.yml')) as Rules;
  before(async () => (exported = await exportedNames()));

  it('finds the metrics the services define, and the checks can fail', () => {
    for (const name of [
      'http_requests_total',
      'grpc_server_handled_total',
      'kafka_consumer_lag',
      'outbox_events',
      'model_tokens_total',
      'notification_pending_deliveries',
      'process_resident_memory_bytes',
    ]) {
      expect(exported.has(name), name).to.equal(true);
    }
    expect(
      parsePromql(
        'sum by (model) (rate(model_call_errors_total{code!="x"}[5m])) / sum(rate(nope_total[5m])) > 0.1',
      ),
    ).to.deep.equal({
      errors: 0,
      metrics: ['model_call_errors_total', 'nope_total'],
    });
    expect(expressionProblems('broken', 'sum(rate(outbox_events[5m]) >', exported)).to.deep.equal([
      'broken: PromQL syntax error in sum(rate(outbox_events[5m]) >',
    ]);
    expect(
      expressionProblems('unknown', 'rate(nope_total[$__rate_interval])', exported),
    ).to.deep.equal(['unknown: unknown metric nope_total']);
  });

  it('every Grafana dashboard panel (deploy/grafana)', () => {
    const expressions = dashboardExpressions();
    expect(expressions.length).to.be.greaterThan(10);
    expect(
      expressions.flatMap(({ where, expr }) => expressionProblems(where, expr, exported)),
    ).to.deep.equal([]);
  });

  it('every alert rule, covering delivery failures, consumer lag, 5xx rate and quota near exhaustion', () => {
    const all = rules.groups.flatMap((group) => group.rules);
    expect(
      all.flatMap((rule) => expressionProblems(rule.alert, rule.expr, exported)),
    ).to.deep.equal([]);
    const used = new Set(all.flatMap((rule) => parsePromql(rule.expr).metrics));
    for (const name of [
      'notification_webhook_attempts_total',
      'kafka_consumer_lag',
      'http_requests_total',
      'notification_usage_thresholds_reached_total',
    ]) {
      expect(used.has(name), name).to.equal(true);
    }
  });

  it('the PrometheusRule of k8s/components/monitoring carries exactly deploy/prometheus/alerts.yml', () => {
    const rule = named(render('overlays/prod'), 'PrometheusRule', 'switchyard');
    expect(rule.spec.groups).to.deep.equal(rules.groups);
  });
});
