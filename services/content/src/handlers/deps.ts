import type { AnsweredOnceOptions, UsagePublisher } from '@switchyard/shared';
import type { GenerateJobRunner } from '../jobs/generate-job';
import type { JobQueue } from '../jobs/job-queue';
import type { ModelRegistry } from '../models/registry';
import type { RequestStore } from '../store';

/** What the handlers that call a model need. */
export interface ModelDeps {
  models: ModelRegistry;
  usage: UsagePublisher;
  maxInputTokens: number;
  /** Where finished billable calls' answers are kept for retries; without it every call runs. */
  answers?: AnsweredOnceOptions;
}

/** Everything the service's handlers need; server.ts builds it once. */
export interface HandlerDeps extends ModelDeps {
  /** Asynchronous requests (SubmitGenerate, GetRequest). */
  requests: RequestStore;
  jobs: JobQueue;
  runner: GenerateJobRunner;
}
