import {
  AppError,
  RetriesStoppedError,
  runWithRetries,
  UsageRoutes,
  withSpan,
  type Logger,
  type RequestResult,
  type UsagePublisher,
} from '@switchyard/shared';
import type { ResultPublisher } from '../events/result-publisher';
import { costOf } from '../models/text-model';
import type { ModelRegistry } from '../models/registry';
import type { AsyncRequestRecord, RequestOutcome, RequestStore } from '../store';
import { runGeneration } from '../models/generation';
import { spentOf } from '../models/usage';

export interface GenerateJobDeps {
  models: ModelRegistry;
  store: RequestStore;
  usage: UsagePublisher;
  results: ResultPublisher;
  logger: Logger;
  /**
   * Attempts to publish the outcome before leaving the request processing (to be resumed); a
   * failure that is an outage (bus and outbox both unreachable) uses none: it is waited out.
   */
  publishAttempts?: number;
  publishRetryMs?: number;
  /** Whether the service still runs: an outage is waited out only until it stops. */
  running?: () => boolean;
}

interface JobOutcome {
  outcome: RequestOutcome;
  /** The model that answered (or last spent tokens); the requested one when none did. */
  model: string;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
}

function errorBody(error: unknown): { code: string; message: string } {
  return error instanceof AppError
    ? { code: error.code, message: error.message }
    : { code: 'internal', message: 'internal error' };
}

/**
 * Runs one asynchronous generation to its end: generate, publish usage and the result (with ids
 * derived from the request id, so a re-run is deduplicated downstream), then record the outcome.
 * While the bus and the outbox are unreachable, publishing and recording wait for them: this
 * process holds the request's lease, so no one else would run it while it lives. If publishing
 * keeps failing otherwise, or the service stops meanwhile, the request stays processing and is
 * re-run on resume.
 */
export class GenerateJobRunner {
  constructor(private readonly deps: GenerateJobDeps) {}

  /** The job is a span of the submitting request's trace (it starts when the queue runs it). */
  run(record: AsyncRequestRecord): Promise<void> {
    return withSpan(
      'generate job',
      { attributes: { 'switchyard.request_id': record.requestId } },
      () => this.runJob(record),
    );
  }

  private async runJob(record: AsyncRequestRecord): Promise<void> {
    const { outcome, model, tokensInput, tokensOutput, cost } = await this.generate(record);
    const { requestId, organization } = record;
    try {
      const failed = await this.retrying(requestId, this.deps.publishAttempts ?? 3, () =>
        this.publish({ ...record, model }, outcome, { tokensInput, tokensOutput, cost }),
      );
      if (failed !== undefined) {
        this.deps.logger.error(
          { error: failed, requestId },
          'could not publish the outcome; request left processing for resumption',
        );
        return;
      }
      const unrecorded = await this.retrying(requestId, 1, async () => {
        await this.deps.store.finish(organization, requestId, outcome);
      });
      if (unrecorded !== undefined) throw new Error(unrecorded);
    } catch (error) {
      if (!(error instanceof RetriesStoppedError)) throw error;
      this.deps.logger.warn(
        { requestId },
        'stopping during an outage; request left processing for resumption',
      );
    }
  }

  private retrying(
    requestId: string,
    maxAttempts: number,
    work: () => Promise<void>,
  ): Promise<string | undefined> {
    return runWithRetries(work, {
      maxAttempts,
      retryBaseMs: this.deps.publishRetryMs ?? 200,
      running: this.deps.running ?? (() => true),
      onFailure: ({ attempt, error, dependency }) =>
        this.deps.logger.warn(
          { requestId, attempt, error, ...(dependency && { dependency }) },
          'publishing or recording the outcome failed',
        ),
    });
  }

  private async generate(record: AsyncRequestRecord): Promise<JobOutcome> {
    try {
      const requested = this.deps.models.resolve(record.model);
      const { model, result } = await runGeneration(
        { model: requested, input: record.input },
        this.deps.models,
      );
      const totalTokens = result.tokensInput + result.tokensOutput;
      return {
        outcome: {
          status: 'completed',
          result: result.text,
          totalTokens,
          completedAt: new Date().toISOString(),
        },
        model: model.info.id,
        tokensInput: result.tokensInput,
        tokensOutput: result.tokensOutput,
        cost: costOf(model.info, result.tokensInput, result.tokensOutput),
      };
    } catch (error) {
      if (!(error instanceof AppError))
        this.deps.logger.error({ err: error, requestId: record.requestId }, 'generation failed');
      const spent = spentOf(error);
      const tokensInput = spent?.tokensInput ?? 0;
      const tokensOutput = spent?.tokensOutput ?? 0;
      return {
        outcome: {
          status: 'failed',
          error: errorBody(error),
          totalTokens: tokensInput + tokensOutput,
          completedAt: new Date().toISOString(),
        },
        model: spent?.model.id ?? record.model,
        tokensInput,
        tokensOutput,
        cost: spent ? costOf(spent.model, tokensInput, tokensOutput) : 0,
      };
    }
  }

  private async publish(
    record: AsyncRequestRecord,
    outcome: RequestOutcome,
    tokens: { tokensInput: number; tokensOutput: number; cost: number },
  ): Promise<void> {
    await this.deps.usage.record({
      organization: record.organization,
      keyId: record.keyId,
      requestId: record.requestId,
      route: UsageRoutes.contentGenerate,
      model: record.model,
      ...tokens,
      outcome: outcome.status === 'completed' ? 'succeeded' : 'failed',
      // Derived from the request id: a job resumed after a crash is counted once.
      eventId: `evt_${record.requestId}_usage`,
    });
    const result: RequestResult = {
      requestId: record.requestId,
      webhookUrl: record.webhookUrl,
      result: outcome.status === 'completed' ? outcome.result : '',
      model: record.model,
      usage: { totalTokens: outcome.totalTokens },
      ...(outcome.status === 'failed' ? { error: outcome.error } : {}),
    };
    if (outcome.status === 'completed')
      await this.deps.results.completed(record.organization, result);
    else await this.deps.results.failed(record.organization, result);
  }
}
