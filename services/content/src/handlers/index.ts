import { withDeps, type ContentServiceServer } from '@switchyard/shared';
import { complete, completeStream } from './complete';
import type { HandlerDeps } from './deps';
import { embed } from './embed';
import { generate } from './generate';
import { generateStream } from './generate-stream';
import { getRequest } from './get-request';
import { listModels } from './list-models';
import { submitGenerate } from './submit-generate';
import { transform } from './transform';

/** The service's handlers: each RPC a transport-free function, bound to the service's deps. */
export function contentHandlers(deps: HandlerDeps): ContentServiceServer {
  return withDeps(deps, {
    generate,
    submitGenerate,
    transform,
    getRequest,
    listModels,
    generateStream,
    complete,
    completeStream,
    embed,
  });
}

export type { HandlerDeps, ModelDeps } from './deps';
