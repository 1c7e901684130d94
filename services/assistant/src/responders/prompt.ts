import type { ContextItem } from '../agents/types';
import type { ResponderInput } from './responder';

/** A retrieved record as plain text for a prompt. */
export function renderContextItem(item: ContextItem): string {
  switch (item.kind) {
    case 'article':
      return `[${item.article.title}](${item.article.url})\n${item.article.summary}\n${item.article.steps.map((s, i) => `${i + 1}. ${s}`).join('\n')}`;
    case 'event': {
      const e = item.event;
      return `${e.name} (${e.category}) - ${e.date} at ${e.venue}, ${e.city}; from ${e.priceFrom} ${e.currency}. ${e.description}`;
    }
    case 'course': {
      const c = item.course;
      return `${c.title} (${c.level}, ${c.format}, ${c.durationWeeks} weeks, ${c.price} ${c.currency}${c.startDate ? `, starts ${c.startDate}` : ''}). ${c.description}`;
    }
    case 'curriculum_step':
      return `Step ${item.step.step}: ${item.step.title}. ${item.step.goal}\n- ${item.step.guidance.join('\n- ')}\n${item.step.confirm}`;
    case 'course_template':
      return `Outline for ${item.template.field}: modules ${item.template.modules.join('; ')}. Activities: ${item.template.activities.join('; ')}. Assignment: ${item.template.assignment}. Quiz idea: ${item.template.quizIdea}.`;
  }
}

/** The prompt a responder considers: system text, retrieved context, then the history. */
export function renderPrompt(input: Pick<ResponderInput, 'systemPrompt' | 'context' | 'history'>): string {
  const parts = [input.systemPrompt];
  if (input.context.length > 0) parts.push(`Context:\n${input.context.map(renderContextItem).join('\n\n')}`);
  parts.push(input.history.map((m) => `${m.role}: ${m.content}`).join('\n'));
  return parts.join('\n\n');
}
