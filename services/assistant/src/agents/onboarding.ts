import { AppError } from '@switchyard/shared';
import type { AgentStep } from '../store/profiles/port';
import type { CourseDraft, OnboardingProgress } from '../store/sessions/port';
import { curriculumStep, type CurriculumStep } from './curriculum';
import { isConfirmation, startsWithConfirmation } from './intents';
import { extractAudience, extractTopic, topicOf } from './topic';
import type { Agent, ContextItem, OfflineInput, PreparedTurn, Turn } from './types';

export const ONBOARDING_STEPS = 5;

/** Step n's guide: the agent's own steps (defined as data) or the built-in course curriculum. */
export function stepGuide(step: number, steps?: AgentStep[]): CurriculumStep {
  if (!steps || steps.length === 0) return curriculumStep(step);
  const own = steps[step - 1];
  if (!own)
    throw new AppError('invalid_request', `this agent has ${steps.length} steps`, [
      { field: '/step', reason: `must be <= ${steps.length}` },
    ]);
  return { step, title: own.title, goal: own.goal, guidance: [], confirm: own.confirm };
}

/** How many steps the agent leads through. */
export function stepCount(steps?: AgentStep[]): number {
  return steps && steps.length > 0 ? steps.length : ONBOARDING_STEPS;
}

const SYSTEM_PROMPT =
  'You are the course onboarding agent. You guide an instructor through numbered steps (the client ' +
  'chooses the step). Give the guidance of the current step only, play back what the user wrote for ' +
  'it (as written), name earlier steps that are still open, and end by asking the user to confirm the step.';

export function createOnboardingAgent(): Agent {
  return {
    info: {
      name: 'onboarding',
      description: 'Course onboarding in five steps, from topic and objectives to the launch plan',
      usesSteps: true,
    },
    prepare: prepareOnboarding,
    composeOffline: composeOnboarding,
  };
}

/**
 * Which step a "done" confirms: the one before when the client moved on right after it was
 * guided (the "done" answers that reply), else the step the client names (going back included).
 */
function confirmedStepOf(turn: Turn, step: number, confirmed: number[]): number | undefined {
  const text = turn.latest;
  if (!isConfirmation(text) && !startsWithConfirmation(text)) return undefined;
  const { lastStep } = turn.memory.onboarding;
  const candidates = lastStep === step - 1 ? [step - 1] : [step];
  return candidates.find((s) => s >= 1 && !confirmed.includes(s));
}

/** What the user wrote this turn, without a leading "done,"/"confirmed." (kept verbatim otherwise). */
function contentOf(text: string): string {
  if (isConfirmation(text)) return '';
  if (!startsWithConfirmation(text)) return text.trim();
  return text.replace(/^\s*[\p{L}' ]{1,20}?[.!,:;-]\s*/u, '').trim();
}

/** Modules as the user named them: lines, "a; b", or "Modules: a, b, c"; "Module 3 Dashboards" stays whole. */
function modulesIn(text: string): string[] {
  const listed = /\bmodul(?:e|es|os)?\s*:\s*(.+)/i.exec(text)?.[1];
  const parts = listed
    ? listed.split(/,|;|\band\b|\n/)
    : text
        .split(/\n|;/)
        .filter((line) => /^\s*(\d+[.)]|[-*•]|module\b|modul\b|m[oó]dulo\b)/i.test(line));
  return parts
    .map((p) =>
      p
        .replace(/^\s*(\d+[.)]|[-*•])\s*/, '')
        .replace(/[.\s]+$/, '')
        .trim(),
    )
    .filter((p) => p.length > 0);
}

function draftOf(
  turn: Turn,
  step: number,
  content: string,
  previous: CourseDraft | undefined,
  openSteps: number[],
): CourseDraft {
  const draft: CourseDraft = {
    topic: previous?.topic,
    audience: previous?.audience,
    modules: [...(previous?.modules ?? [])],
    notes: { ...(previous?.notes ?? {}) },
    openSteps,
  };
  if (!content) return draft;
  draft.notes[String(step)] = [...(draft.notes[String(step)] ?? []), content];
  if (!turn.steps) {
    // The topic: stated anywhere ("a course on X"), or the first thing said at step 1.
    const topic =
      extractTopic(content) ?? (step === 1 && !draft.topic ? topicOf(content) : undefined);
    if (topic) draft.topic = topic;
    const audience = extractAudience(content);
    if (audience) draft.audience = audience;
    if (step === 2)
      for (const module of modulesIn(content))
        if (!draft.modules.includes(module)) draft.modules.push(module);
  }
  return draft;
}

function prepareOnboarding(turn: Turn): PreparedTurn {
  const step = turn.step ?? 1;
  const previous = turn.memory.onboarding;
  const confirmedStep = confirmedStepOf(turn, step, previous.confirmedSteps);
  const confirmedSteps =
    confirmedStep !== undefined
      ? [...new Set([...previous.confirmedSteps, confirmedStep])].sort((a, b) => a - b)
      : previous.confirmedSteps;
  const openSteps = Array.from({ length: step - 1 }, (_, i) => i + 1).filter(
    (s) => !confirmedSteps.includes(s),
  );
  const draft = draftOf(turn, step, contentOf(turn.latest), previous.draft, openSteps);
  const onboarding: OnboardingProgress = { confirmedSteps, lastStep: step, draft };
  const context: ContextItem[] = [{ kind: 'curriculum_step', step: stepGuide(step, turn.steps) }];
  const known = [
    draft.topic && `course topic: ${draft.topic}`,
    draft.audience && `audience: ${draft.audience}`,
    draft.modules.length > 0 && `modules: ${draft.modules.join('; ')}`,
  ]
    .filter(Boolean)
    .join('; ');
  return {
    systemPrompt:
      `${SYSTEM_PROMPT}\nCurrent step: ${step}. Confirmed steps: ${confirmedSteps.join(', ') || 'none'}.` +
      `${openSteps.length > 0 ? ` Earlier steps still open: ${openSteps.join(', ')}.` : ''}` +
      `${known ? ` Known: ${known}.` : ''}`,
    context,
    memory: { ...turn.memory, onboarding },
    signals: { confirmedStep, openSteps },
  };
}

function quoteLines(texts: string[]): string {
  return texts
    .map((t) =>
      t
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n'),
    )
    .join('\n');
}

function composeOnboarding({ prepared, step: requested }: OfflineInput): string {
  const step = requested ?? 1;
  const steps = prepared.steps;
  const total = stepCount(steps);
  const draft = prepared.memory.onboarding.draft;
  const { confirmedStep, openSteps = [] } = prepared.signals;
  const guide = stepGuide(step, steps);
  const notes = draft?.notes[String(step)] ?? [];
  const parts: string[] = [];

  if (confirmedStep !== undefined)
    parts.push(`Step ${confirmedStep} (${stepGuide(confirmedStep, steps).title}) is confirmed. ✅`);
  if (confirmedStep === step) {
    if (openSteps.length > 0) parts.push(`Not confirmed yet: ${describeSteps(openSteps, steps)}.`);
    if (step >= total) {
      parts.push(
        `That completes all ${total} steps${draft?.topic ? ` for **${draft.topic}**` : ''}.` +
          (openSteps.length > 0
            ? ` Still open from earlier: ${describeSteps(openSteps, steps)}.`
            : ''),
      );
      return parts.join('\n\n');
    }
    const next = stepGuide(step + 1, steps);
    parts.push(
      `Next is step ${step + 1}: **${next.title}**. Send your next message with step ${step + 1} when you're ready, or tell me what to change in step ${step}.`,
    );
    return parts.join('\n\n');
  }

  parts.push(`**Step ${step} of ${total}: ${guide.title}**`);
  if (openSteps.length > 0)
    parts.push(
      `Not confirmed yet: ${describeSteps(openSteps, steps)}. We can go back to ${openSteps.length === 1 ? 'it' : 'them'} at any time.`,
    );
  if (draft?.topic)
    parts.push(
      `Your course: **${draft.topic}**${draft.audience ? ` (for ${draft.audience})` : ''}.`,
    );
  if (notes.length > 0)
    parts.push(`What you've written for this step:\n${quoteLines(notes.slice(-3))}`);
  if (!steps && step === 2 && draft && draft.modules.length > 0)
    parts.push(`Modules so far:\n${draft.modules.map((m, i) => `${i + 1}. ${m}`).join('\n')}`);
  if (steps) {
    const purpose = guide.goal.trim().replace(/\.$/, '');
    parts.push(
      purpose
        ? `This step is about ${lowerFirst(guide.title)}: ${lowerFirst(purpose)}.`
        : `This step is about ${lowerFirst(guide.title)}.`,
    );
    if (notes.length === 0) parts.push('Tell me what you have for it.');
    const confirm = guide.confirm.trim().replace(/\.$/, '');
    parts.push(
      confirm
        ? `When this step is complete (${lowerFirst(confirm)}), reply "done".`
        : 'When this step is complete, reply "done".',
    );
  } else {
    if (step === 1 && !draft?.topic)
      parts.push('Tell me what your course is about and who it is for, in your own words.');
    else parts.push(`${guide.goal}\n${guide.guidance.map((g) => `- ${g}`).join('\n')}`);
    parts.push(guide.confirm);
  }
  return parts.join('\n\n');
}

function describeSteps(numbers: number[], steps?: AgentStep[]): string {
  return numbers.map((n) => `step ${n} (${stepGuide(n, steps).title})`).join(', ');
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
