import type { AnsweredOnceOptions } from '@switchyard/shared';
import type { UsagePublisher } from '../events/usage-publisher';
import type { ModelRegistry } from '../models/registry';

/** What the synchronous handlers need. */
export interface HandlerDeps {
  models: ModelRegistry;
  usage: UsagePublisher;
  maxInputTokens: number;
  /** Where finished billable calls' answers are kept for retries; without it every call runs. */
  answers?: AnsweredOnceOptions;
}
