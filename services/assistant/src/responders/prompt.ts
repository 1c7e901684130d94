import { countTokens } from '@switchyard/shared';
import type { CompletionMessage } from '@switchyard/shared/proto/content/v1';
import { stepCount, stepGuide } from '../agents/onboarding';
import type { AgentStep } from '../store/profiles/port';
import type { ContextItem, PreparedTurn } from '../agents/types';
import { factBlock, filtersInForce, frameOf } from './composition';
import type { ResponderInput } from './responder';
import { knowledgeLine } from '../agents/knowledge-answer';

/** A retrieved record as plain text for a prompt. */
export function renderContextItem(item: ContextItem): string {
  switch (item.kind) {
    case 'curriculum_step':
      return `Step ${item.step.step}: ${item.step.title}. ${item.step.goal}\n- ${item.step.guidance.join('\n- ')}\n${item.step.confirm}`;
    case 'knowledge':
      return `${knowledgeLine(item.found)}\n${item.found.passage}`;
  }
}

/** The prompt a responder considers: system text, retrieved context, then the history. */
export function renderPrompt(
  input: Pick<ResponderInput, 'systemPrompt' | 'context' | 'history'>,
): string {
  const parts = [input.systemPrompt];
  if (input.context.length > 0)
    parts.push(`Context:\n${input.context.map(renderContextItem).join('\n\n')}`);
  parts.push(input.history.map((m) => `${m.role}: ${m.content}`).join('\n'));
  return parts.join('\n\n');
}

/** What the onboarding step of this turn asks of the model (the step is chosen by the client). */
export function stepInstructions(step: number, steps?: AgentStep[]): string {
  const guide = stepGuide(step, steps);
  return (
    `This turn is onboarding step ${step} of ${stepCount(steps)}: ${guide.title}. ${guide.goal} ` +
    `Give the guidance of this step only, tailored to the course, then end with: "${guide.confirm}"`
  );
}

/** What every model is told, tiny or hosted: it words the facts; the service owns them. */
export const GROUNDED_RULES =
  'Answer from the facts below and the conversation only. Never state a price, number, date, time, ' +
  'place, name, link, email address or phone number that is not written there; when the facts do not ' +
  'answer, say so plainly. Do not write links, email addresses or phone numbers: the service adds the ' +
  "sources and contacts to your reply. Answer in the user's language, in at most five sentences.";

/**
 * The chat messages a model answers: one system message (agent instructions, the grounding rules,
 * the onboarding step's instructions, the facts with their ids, the question as the service read
 * it, what the service adds after the reply, the summary of earlier turns), then the session
 * history ending with the user's message.
 */
export function completionMessages(
  input: Pick<ResponderInput, 'systemPrompt' | 'context' | 'history' | 'step' | 'summary'> & {
    prepared?: Pick<PreparedTurn, 'steps'> & Partial<PreparedTurn>;
  },
): CompletionMessage[] {
  const system = [input.systemPrompt, GROUNDED_RULES];
  if (input.step !== undefined) system.push(stepInstructions(input.step, input.prepared?.steps));
  system.push(
    input.context.length > 0
      ? `Facts ([n] and id name each record):\n${input.context.map((item, i) => factBlock(item, i + 1)).join('\n\n')}`
      : 'Facts: none were found for this message.',
  );
  const prepared = input.prepared;
  if (prepared?.signals && prepared.memory) {
    const full = prepared as PreparedTurn;
    const filters = filtersInForce(full);
    if (filters) system.push(`The question as the service read it: ${filters}.`);
    const { closing } = frameOf(full, input.step);
    if (closing.length > 0)
      system.push(
        `After your words the service adds (do not write it yourself): ${closing.join(' ')}`,
      );
  }
  if (input.summary)
    system.push(
      `Summary of the earlier conversation (those turns are not repeated below):\n${input.summary}`,
    );
  return [
    { role: 'system', content: system.join('\n\n') },
    ...input.history.map((m) => ({ role: m.role, content: m.content })),
  ];
}

/**
 * The messages within a token budget: the system message is always kept, then the newest turns
 * that fit (the latest message always); dropped older turns leave a note in the system message.
 */
export function trimToBudget(messages: CompletionMessage[], budget: number): CompletionMessage[] {
  const [system, ...history] = messages;
  if (!system || system.role !== 'system') return messages;
  let used = countTokens(system.content ?? '');
  let keep = history.length;
  while (keep > 0) {
    const cost = countTokens(history[keep - 1]?.content ?? '');
    if (keep < history.length && used + cost > budget) break;
    used += cost;
    keep--;
  }
  const dropped = keep;
  if (dropped === 0) return messages;
  const note = `(${dropped} earlier message${dropped === 1 ? '' : 's'} of this conversation omitted to fit the model's budget.)`;
  return [{ ...system, content: `${system.content}\n\n${note}` }, ...history.slice(dropped)];
}
