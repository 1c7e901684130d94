import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { modelMetrics, recordModelCall } from '../src/models/model-metrics';

async function value(name: string, labels: Record<string, string>): Promise<number> {
  const family = name.replace(/_count$/, '');
  const values = (await modelMetrics.getSingleMetric(family)!.get()).values;
  const found = values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? family) === name &&
      Object.entries(labels).every(([k, expected]) => v.labels[k] === expected),
  );
  return found?.value ?? 0;
}

describe('model call metrics', () => {
  it('latency by model and outcome, tokens by direction, errors by code', async () => {
    const model = `m-${Date.now()}`;
    recordModelCall({
      model,
      route: 'content.generate',
      seconds: 0.2,
      tokensInput: 12,
      tokensOutput: 30,
    });
    recordModelCall({
      model,
      route: 'content.generate',
      seconds: 1.5,
      tokensInput: 7,
      tokensOutput: 0,
      error: new AppError('upstream_error', 'provider failed'),
    });
    recordModelCall({
      model,
      route: 'content.transform',
      seconds: 0.1,
      tokensInput: 0,
      tokensOutput: 0,
      error: new Error('bug'),
    });
    expect(
      await value('model_call_duration_seconds_count', { model, outcome: 'succeeded' }),
    ).to.equal(1);
    expect(
      await value('model_call_duration_seconds_count', {
        model,
        outcome: 'failed',
        route: 'content.generate',
      }),
    ).to.equal(1);
    expect(await value('model_tokens_total', { model, direction: 'input' })).to.equal(19);
    expect(await value('model_tokens_total', { model, direction: 'output' })).to.equal(30);
    expect(await value('model_call_errors_total', { model, code: 'upstream_error' })).to.equal(1);
    expect(await value('model_call_errors_total', { model, code: 'internal' })).to.equal(1);
  });
});
