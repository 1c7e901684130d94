import { AppError, type Logger, type RequestResult } from '@switchyard/shared';
import { ENDPOINTS, type UsagePublisher } from '../events/usage-publisher';
import type { ResultPublisher } from '../events/result-publisher';
import { costOf } from '../models/text-model';
import type { ModelRegistry } from '../models/registry';
import type { AsyncRequestRecord, RequestOutcome, RequestStore } from '../store/request-store';
import { runGeneration } from '../handlers/generate';

export interface GenerateJobDeps {
  models: ModelRegistry;
  store: RequestStore;
  usage: UsagePublisher;
  results: ResultPublisher;
  logger: Logger;
  /** Attempts to publish the outcome before leaving the request processing (to be resumed). */
  publishAttempts?: number;
  publishRetryMs?: number;
}

interface JobOutcome {
  outcome: RequestOutcome;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
}

function errorBody(error: unknown): { code: string; message: string } {
  return error instanceof AppError ? { code: error.code, message: error.message } : { code: 'internal', message: 'internal error' };
}

async function withRetries(attempts: number, delayMs: number, action: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, delayMs * attempt));
    }
  }
}

/**
 * Runs one asynchronous generation to its end: generate, publish usage and the result (with ids
 * derived from the request id, so a re-run is deduplicated downstream), then record the outcome.
 * If publishing keeps failing the request stays processing and is re-run on resume.
 */
export class GenerateJobRunner {
  constructor(private readonly deps: GenerateJobDeps) {}

  async run(record: AsyncRequestRecord): Promise<void> {
    const { outcome, tokensInput, tokensOutput, cost } = await this.generate(record);
    try {
      await withRetries(this.deps.publishAttempts ?? 3, this.deps.publishRetryMs ?? 200, () => this.publish(record, outcome, { tokensInput, tokensOutput, cost }));
    } catch (error) {
      this.deps.logger.error({ err: error, requestId: record.requestId }, 'could not publish the outcome; request left processing for resumption');
      return;
    }
    await this.deps.store.finish(record.organization, record.requestId, outcome);
  }

  private async generate(record: AsyncRequestRecord): Promise<JobOutcome> {
    try {
      const model = this.deps.models.resolve(record.model);
      const result = await runGeneration({ model, input: record.input });
      const totalTokens = result.tokensInput + result.tokensOutput;
      return {
        outcome: { status: 'completed', result: result.text, totalTokens, completedAt: new Date().toISOString() },
        tokensInput: result.tokensInput,
        tokensOutput: result.tokensOutput,
        cost: costOf(model.info, result.tokensInput, result.tokensOutput),
      };
    } catch (error) {
      if (!(error instanceof AppError)) this.deps.logger.error({ err: error, requestId: record.requestId }, 'generation failed');
      return {
        outcome: { status: 'failed', error: errorBody(error), totalTokens: 0, completedAt: new Date().toISOString() },
        tokensInput: 0,
        tokensOutput: 0,
        cost: 0,
      };
    }
  }

  private async publish(
    record: AsyncRequestRecord,
    outcome: RequestOutcome,
    tokens: { tokensInput: number; tokensOutput: number; cost: number },
  ): Promise<void> {
    await this.deps.usage.record(
      record.organization,
      {
        requestId: record.requestId,
        keyId: record.keyId,
        endpoint: ENDPOINTS.generate,
        model: record.model,
        ...tokens,
        outcome: outcome.status === 'completed' ? 'succeeded' : 'failed',
      },
      `evt_${record.requestId}_usage`,
    );
    const result: RequestResult = {
      requestId: record.requestId,
      webhookUrl: record.webhookUrl,
      result: outcome.status === 'completed' ? outcome.result : '',
      model: record.model,
      usage: { totalTokens: outcome.totalTokens },
      ...(outcome.status === 'failed' ? { error: outcome.error } : {}),
    };
    if (outcome.status === 'completed') await this.deps.results.completed(record.organization, result);
    else await this.deps.results.failed(record.organization, result);
  }
}
