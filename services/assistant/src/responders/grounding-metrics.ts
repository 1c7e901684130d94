import { Counter, Registry } from 'prom-client';
import type { GroundingOutcome } from './grounded';

/** The assistant's own metrics, served on METRICS_PORT (and on the gateway's /metrics when embedded). */
export const assistantMetrics = new Registry();

const repliesChecked = new Counter({
  name: 'assistant_grounding_checks_total',
  help: 'Model-written assistant replies checked against the facts of their turn, by model and outcome (grounded, overruled).',
  labelNames: ['model', 'outcome'] as const,
  registers: [assistantMetrics],
});

const issuesFound = new Counter({
  name: 'assistant_grounding_issues_total',
  help: 'Ungrounded statements found in model-written replies, by model and kind (price, number, date, time, url, email, phone, name, unsupported, loop, length).',
  labelNames: ['model', 'kind'] as const,
  registers: [assistantMetrics],
});

/** Counts one checked reply, and what it stated without ground. */
export function recordGrounding(outcome: GroundingOutcome): void {
  repliesChecked.inc({
    model: outcome.model,
    outcome: outcome.overruled ? 'overruled' : 'grounded',
  });
  for (const issue of outcome.issues) issuesFound.inc({ model: outcome.model, kind: issue.kind });
}
