import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parse as parseYaml } from 'yaml';
import { ROOT, named, readText, render } from './render';

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** Metric names a PromQL expression reads (functions, keywords, labels and strings left out). */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names: string[] = [];
  for (const match of bare.matchAll(/(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    if (!match[2] && !PROMQL_WORDS.has(match[1]!)) names.push(match[1]!);
  }
  return names;
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
  const roots = ['shared/src', ...readdirSync(path.join(ROOT, 'services')).map((s) => `services/${s}/src`)];
  for (const file of roots.flatMap((root) => sourceFiles(path.join(ROOT, root)))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/new (Counter|Gauge|Histogram|Summary)\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g)) {
      const [, type, name] = match;
      names.add(name!);
      if (type === 'Histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    }
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
      const dashboard = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
      return dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ where: `${file}: ${panel.title}`, expr: target.expr })));
    });
}

describe('dashboards and alerts reference only metrics the services export', () => {
  let exported: Set<string>;
  const rules = parseYaml(readText('deploy/prometheus/alerts.yml')) as Rules;
  before(async () => (exported = await exportedNames()));

  it('finds the metrics the services define (the scan works)', () => {
    for (const name of ['http_requests_total', 'grpc_server_handled_total', 'kafka_consumer_lag', 'outbox_events', 'model_tokens_total', 'notification_pending_deliveries', 'process_resident_memory_bytes']) {
      expect(exported.has(name), name).to.equal(true);
    }
    expect(metricNamesIn('sum by (model) (rate(model_call_errors_total{code!="x"}[5m])) / sum(rate(nope_total[5m])) > 0.1')).to.deep.equal(['model_call_errors_total', 'nope_total']);
  });

  it('every Grafana dashboard panel (deploy/grafana)', () => {
    const expressions = dashboardExpressions();
    expect(expressions.length).to.be.greaterThan(10);
    const unknown = expressions.flatMap(({ where, expr }) => metricNamesIn(expr).filter((name) => !exported.has(name)).map((name) => `${where}: ${name}`));
    expect(unknown).to.deep.equal([]);
  });

  it('every alert rule, covering delivery failures, consumer lag, 5xx rate and quota near exhaustion', () => {
    const all = rules.groups.flatMap((group) => group.rules);
    const unknown = all.flatMap((rule) => metricNamesIn(rule.expr).filter((name) => !exported.has(name)).map((name) => `${rule.alert}: ${name}`));
    expect(unknown).to.deep.equal([]);
    const used = new Set(all.flatMap((rule) => metricNamesIn(rule.expr)));
    for (const name of ['notification_webhook_attempts_total', 'kafka_consumer_lag', 'http_requests_total', 'notification_usage_thresholds_reached_total']) {
      expect(used.has(name), name).to.equal(true);
    }
  });

  it('the PrometheusRule of k8s/components/monitoring carries exactly deploy/prometheus/alerts.yml', () => {
    const rule = named(render('overlays/prod'), 'PrometheusRule', 'switchyard');
    expect(rule.spec.groups).to.deep.equal(rules.groups);
  });
});
