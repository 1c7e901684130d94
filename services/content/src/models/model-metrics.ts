import { AppError } from '@switchyard/shared';
import { Counter, Histogram, Registry } from 'prom-client';

/** Model-call metrics of the content service, served on METRICS_PORT. */
export const modelMetrics = new Registry();

const callSeconds = new Histogram({
  name: 'model_call_duration_seconds',
  help: 'Duration of one model operation (retries and fallbacks included) by answering model, usage route and outcome.',
  labelNames: ['model', 'route', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
  registers: [modelMetrics],
});

const tokensTotal = new Counter({
  name: 'model_tokens_total',
  help: 'Tokens spent by model and direction (input, output), failed calls included.',
  labelNames: ['model', 'direction'] as const,
  registers: [modelMetrics],
});

const errorsTotal = new Counter({
  name: 'model_call_errors_total',
  help: 'Failed model operations by model and error code.',
  labelNames: ['model', 'code'] as const,
  registers: [modelMetrics],
});

/** Records one finished model operation. */
export function recordModelCall(call: {
  model: string;
  route: string;
  seconds: number;
  tokensInput: number;
  tokensOutput: number;
  error?: unknown;
}): void {
  const outcome = call.error === undefined ? 'succeeded' : 'failed';
  callSeconds.observe({ model: call.model, route: call.route, outcome }, call.seconds);
  if (call.tokensInput > 0)
    tokensTotal.inc({ model: call.model, direction: 'input' }, call.tokensInput);
  if (call.tokensOutput > 0)
    tokensTotal.inc({ model: call.model, direction: 'output' }, call.tokensOutput);
  if (call.error !== undefined)
    errorsTotal.inc({
      model: call.model,
      code: call.error instanceof AppError ? call.error.code : 'internal',
    });
}
