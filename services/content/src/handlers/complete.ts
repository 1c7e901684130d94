import { AppError, type CallContext } from '@switchyard/shared';
import type {
  CompleteChunk,
  CompleteRequest__Output,
  CompleteResponse,
} from '@switchyard/shared/proto/content/v1';
import type { StreamSink } from '@switchyard/shared';
import { checkAllowed } from '../models/allowed';
import { routeWithFallback, type Routed } from '../models/routing';
import {
  costOf,
  type CallOptions,
  type ChatMessage,
  type CompleteInput,
  type TextModel,
  type TextResult,
  type ToolSpec,
} from '../models/text-model';
import { completeChat, completeChatStream } from './chat-completions';
import type { ModelDeps } from './deps';
import { usageMessage } from './model-call';
import { checkContextWindow, checkMessagesSize, maxLengthFor } from './validation';

const ROLES = ['system', 'user', 'assistant', 'tool'] as const;

interface PreparedCompletion {
  model: TextModel;
  input: CompleteInput;
}

function messagesOf(request: CompleteRequest__Output): ChatMessage[] {
  if (request.messages.length === 0)
    throw AppError.invalid('messages must not be empty', '/messages', 'required');
  return request.messages.map((message, index) => {
    if (!(ROLES as readonly string[]).includes(message.role)) {
      throw AppError.invalid(
        `messages[${index}].role must be one of ${ROLES.join(', ')}`,
        `/messages/${index}/role`,
        'unknown role',
      );
    }
    const toolCalls = message.tool_calls.map((c) => ({
      id: c.id,
      name: c.name,
      arguments: c.arguments_json,
    }));
    return {
      role: message.role as ChatMessage['role'],
      content: message.content,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(message.tool_call_id ? { toolCallId: message.tool_call_id } : {}),
    };
  });
}

function toolsOf(request: CompleteRequest__Output): ToolSpec[] | undefined {
  if (request.tools.length === 0) return undefined;
  return request.tools.map((t, i) => {
    try {
      return {
        name: t.name,
        description: t.description,
        parameters: JSON.parse(t.parameters_json || '{}') as Record<string, unknown>,
      };
    } catch {
      throw AppError.invalid(
        `tools[${i}].parameters_json is not JSON`,
        `/tools/${i}/parameters_json`,
        'must be a JSON object',
      );
    }
  });
}

/** Validates a completion: the model must have the chat capability; sizes within the limits. */
function prepareCompletion(
  request: CompleteRequest__Output,
  deps: ModelDeps,
  context: CallContext,
): PreparedCompletion {
  const messages = messagesOf(request);
  const model = deps.models.resolveFor(request.model, 'chat');
  checkAllowed(deps.models, model, context.models);
  const texts = messages.map((message) => message.content);
  checkMessagesSize(texts, 'messages', deps.maxInputTokens);
  const maxTokens = maxLengthFor(request.max_tokens, model, 'max_tokens');
  checkContextWindow(texts, maxTokens, 'messages', model);
  const tools = toolsOf(request);
  return { model, input: { messages, maxTokens, ...(tools ? { tools } : {}) } };
}

function inputFor(model: TextModel, input: CompleteInput): CompleteInput {
  return { ...input, maxTokens: Math.min(input.maxTokens, model.info.maxOutputTokens) };
}

function unsupportedChat(model: TextModel): AppError {
  return AppError.unsupported(`model ${model.info.id} cannot complete chats`, [
    { field: '/model', reason: 'lacks the chat capability' },
  ]);
}

function responseOf(routed: Routed<TextResult>): CompleteResponse {
  const { model, result } = routed;
  return {
    text: result.text,
    usage: usageMessage({
      model,
      ...result,
      cost: costOf(model.info, result.tokensInput, result.tokensOutput),
    }),
    ...(result.toolCalls?.length
      ? {
          tool_calls: result.toolCalls.map((c) => ({
            id: c.id,
            name: c.name,
            arguments_json: c.arguments,
          })),
        }
      : {}),
  };
}

/**
 * Complete: messages in, text and usage out. No usage event: the caller answering the public
 * endpoint records it. With openai_request, the /v1 path (chat-completions.ts).
 */
export async function complete(
  deps: ModelDeps,
  request: CompleteRequest__Output,
  context: CallContext,
  options: CallOptions,
): Promise<CompleteResponse> {
  if (request.openai_request.length > 0) return completeChat(deps, request, context, options);
  const prepared = prepareCompletion(request, deps, context);
  const routed = await routeWithFallback(
    'chat',
    deps.models.chainFor(prepared.model, 'chat'),
    (model) => {
      if (!model.complete) throw unsupportedChat(model);
      return model.complete(inputFor(model, prepared.input), options);
    },
  );
  return responseOf(routed);
}

/** CompleteStream: deltas then a final chunk; falls back only while nothing was sent. */
export async function completeStream(
  deps: ModelDeps,
  request: CompleteRequest__Output,
  context: CallContext,
  sink: StreamSink<CompleteChunk>,
): Promise<void> {
  if (request.openai_request.length > 0) return completeChatStream(deps, request, context, sink);
  const prepared = prepareCompletion(request, deps, context);
  let sent = 0;
  const onDelta = async (delta: string) => {
    sent++;
    await sink.write({ delta });
  };
  const routed = await routeWithFallback(
    'chat',
    deps.models.chainFor(prepared.model, 'chat'),
    (model) => {
      if (!model.completeStream) throw unsupportedChat(model);
      return model.completeStream(inputFor(model, prepared.input), onDelta, sink.control);
    },
    () => sent === 0,
  );
  await sink.write({ final: responseOf(routed) });
}
