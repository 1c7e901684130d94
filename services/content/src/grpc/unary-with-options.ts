import { AppError, contextFromMetadata, toServiceError, type CallContext, type Logger } from '@switchyard/shared';
import type { CallOptions } from '../models/text-model';
import { callOptionsOf, type ServerCallLike } from './call-options';

export type UnaryHandlerWithOptions<Req, Res> = (request: Req, context: CallContext, options: CallOptions) => Promise<Res>;

type Callback<Res> = (error: ReturnType<typeof toServiceError> | null, response?: Res) => void;

/**
 * Like shared's unary(), and also hands the handler the call's deadline and cancellation so
 * model calls (queueing, retries, timeouts) respect them.
 */
export function unaryWithOptions<Req, Res>(logger: Logger, handler: UnaryHandlerWithOptions<Req, Res>) {
  return (call: ServerCallLike<Req>, callback: Callback<Res>): void => {
    const context = contextFromMetadata(call.metadata);
    handler(call.request, context, callOptionsOf(call)).then(
      (response) => callback(null, response),
      (error: unknown) => {
        if (error instanceof AppError) {
          callback(toServiceError(error));
          return;
        }
        logger.error({ err: error, requestId: context.requestId, method: call.getPath() }, 'handler failed');
        callback(toServiceError(new AppError('internal', 'internal error')));
      },
    );
  };
}
