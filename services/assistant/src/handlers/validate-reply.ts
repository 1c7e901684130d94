import { IANAZone } from 'luxon';
import { AppError, countTokensOffThread } from '@switchyard/shared';
import type { ReplyRequest__Output } from '@switchyard/shared/proto/assistant/v1';
import type { AgentInfo } from '../agents/types';
import { ONBOARDING_STEPS } from '../agents/onboarding';
import type { ChatMessage, MessageRole } from '../store/sessions/port';

const ROLES: readonly MessageRole[] = ['user', 'system', 'assistant'];

export interface ValidReply {
  userId: string;
  sessionId: string;
  messages: ChatMessage[];
  step?: number;
  /** Requested model id; empty means the default. */
  model: string;
  /** The organization's IANA zone for dates in the user's words. */
  timeZone: string;
}

function isRole(value: unknown): value is MessageRole {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

function validMessages(raw: unknown): ChatMessage[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw AppError.invalid(
      'messages must contain at least one message',
      '/messages',
      'must not be empty',
    );
  }
  const messages = raw.map((message: unknown, i): ChatMessage => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (!isRole(role))
      throw AppError.invalid(
        `messages[${i}].role must be one of ${ROLES.join(', ')}`,
        `/messages/${i}/role`,
        `must be one of ${ROLES.join(', ')}`,
      );
    if (typeof content !== 'string')
      throw AppError.invalid(
        `messages[${i}].content must be a string`,
        `/messages/${i}/content`,
        'must be string',
      );
    return { role, content };
  });
  const last = messages[messages.length - 1] as ChatMessage;
  if (last.role !== 'user') {
    throw AppError.invalid(
      'the last message must be from the user',
      '/messages',
      'last message must have role user',
    );
  }
  if (last.content.trim() === '') {
    throw AppError.invalid(
      'the last user message must not be empty',
      `/messages/${messages.length - 1}/content`,
      'must not be empty',
    );
  }
  return messages;
}

function requiredText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw AppError.invalid(`${field} is required`, `/${field}`, 'must be a non-empty string');
  return value;
}

function validStep(step: unknown, agent: AgentInfo): number | undefined {
  if (!agent.usesSteps) {
    if (step !== undefined && step !== null)
      throw AppError.invalid('step is only for the onboarding agent', '/step', 'must not be set');
    return undefined;
  }
  if (step === undefined || step === null)
    throw AppError.invalid('step is required for the onboarding agent', '/step', 'required');
  const last = agent.steps ?? ONBOARDING_STEPS;
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 1 || step > last) {
    throw AppError.invalid(
      `step must be an integer from 1 to ${last}`,
      '/step',
      `must be integer 1..${last}`,
    );
  }
  return step;
}

/**
 * Zones found valid: luxon checks a zone by building an Intl.DateTimeFormat, which costs more
 * than the rest of a reply's validation. Bounded by the IANA database (invalid names are not kept).
 */
const validZones = new Set<string>();

function isValidZone(zone: string): boolean {
  if (validZones.has(zone)) return true;
  if (!IANAZone.isValidZone(zone)) return false;
  validZones.add(zone);
  return true;
}

function validTimeZone(value: unknown): string {
  const zone = typeof value === 'string' && value.trim() !== '' ? value.trim() : 'UTC';
  if (!isValidZone(zone))
    throw AppError.invalid(
      `time_zone '${zone}' is not an IANA time zone`,
      '/time_zone',
      'must be an IANA time zone',
    );
  return zone;
}

/** Checks a Reply request for an agent; throws invalid_request naming the field (JSON pointer). */
export function validateReplyRequest(request: ReplyRequest__Output, agent: AgentInfo): ValidReply {
  const messages = validMessages(request.messages);
  const sessionId = requiredText(request.session_id, 'session_id');
  const userId = requiredText(request.user_id, 'user_id');
  const step = validStep(request.step, agent);
  return {
    userId,
    sessionId,
    messages,
    step,
    model: typeof request.model === 'string' ? request.model : '',
    timeZone: validTimeZone(request.time_zone),
  };
}

/**
 * Every message of the call within the largest one a conversation takes (413 payload_too_large
 * naming it): a long paste is refused whole, never stored, echoed or billed. A message of at most
 * that many bytes cannot have more tokens; a longer one is counted off the event loop.
 */
export async function checkMessageSizes(messages: ChatMessage[], maxTokens: number): Promise<void> {
  for (const [i, message] of messages.entries()) {
    if (Buffer.byteLength(message.content) <= maxTokens) continue;
    const tokens = await countTokensOffThread(message.content);
    if (tokens > maxTokens)
      throw new AppError(
        'payload_too_large',
        `messages[${i}] is ${tokens} tokens; a message may have at most ${maxTokens}`,
        [{ field: `/messages/${i}/content`, reason: `over ${maxTokens} tokens` }],
      );
  }
}
