import { AppError } from '@switchyard/shared';
import type { AgentStep } from '../store/profiles/port';
import type { CourseDraft, OnboardingProgress } from '../store/sessions/port';
import { curriculumStep, type CurriculumStep } from './curriculum';
import { isConfirmation, startsWithConfirmation } from './intents';
import { normalize } from '../language/normalize';
import { wholeExcerpt } from '../language/values';
import { extractAudience, extractTopic, statedTopic, topicOf } from './topic';
import type { Agent, ContextItem, OfflineInput, PreparedTurn, Turn } from './types';

export const ONBOARDING_STEPS = 5;
/** What the user wrote at a step is kept (verbatim) for this many messages, the newest. */
const NOTES_PER_STEP = 10;
/** Characters of a note a reply plays back; a long message is never echoed whole. */
const PLAYBACK_CHARS = 300;
/** Modules a draft keeps, and the characters of a module's name. */
const MAX_MODULES = 30;
const MODULE_CHARS = 120;

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
      // Guides through its steps; it searches no collection.
      searchedKinds: [],
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

const NUMBER_WORDS: Record<string, number> = {
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  zwei: 2,
  drei: 3,
  vier: 4,
  funf: 5,
  sechs: 6,
  sieben: 7,
  acht: 8,
  neun: 9,
  zehn: 10,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  deux: 2,
  trois: 3,
  quatre: 4,
  cinq: 5,
  sept: 7,
  huit: 8,
  neuf: 9,
  dix: 10,
};
/** "and" between the last two names of a list, in the four languages. */
const AND = /\s+(?:and|und|y|e|et|&)\s+/i;

/** How many modules the user says there are ("four modules:", "3 Module"), if they say. */
function declaredCount(text: string): number | undefined {
  const said = /(\d{1,2}|[a-zäöüéèçñ]+)\s+(?:modules?|module|modulen|m[oó]dulos?)\b/i.exec(
    normalize(text),
  )?.[1];
  if (!said) return undefined;
  return /^\d+$/.test(said) ? Number(said) : NUMBER_WORDS[said];
}

/**
 * Modules as the user named them: lines, "a; b", or "Modules: a, b, c and d"; "Module 3
 * Dashboards" and "Lights and visibility" stay whole. An "and" separates two modules only where the
 * list needs it: between its last two names ("a, b and c"), or to reach the number the user gave.
 */
function modulesIn(text: string): string[] {
  const listed = /\bm(?:odul(?:e|es|en)?|[oó]dulos?)\s*:\s*([\s\S]+)/i.exec(text)?.[1];
  let parts = listed
    ? listed.split(/,|;|\n/)
    : text
        .split(/\n|;/)
        .filter((line) => /^\s*(\d+[.)]|[-*•]|module\b|modul\b|m[oó]dulo\b)/i.test(line));
  parts = parts
    .map((p) =>
      p
        .replace(/^\s*(\d+[.)]|[-*•])\s*/, '')
        .replace(/^\s*(?:and|und|y|et|&)\s+/i, '')
        .replace(/[.\s]+$/, '')
        .trim(),
    )
    .filter((p) => p.length > 0);
  if (!listed) return parts;
  const wanted = declaredCount(text);
  if (wanted !== undefined) {
    // Split at "and" from the last name back until the count the user gave is met.
    for (let i = parts.length - 1; i >= 0 && parts.length < wanted; i--) {
      const halves = (parts[i] as string).split(AND);
      if (halves.length > 1) parts.splice(i, 1, ...halves.slice(0, wanted - parts.length + 1));
    }
    return parts;
  }
  const last = parts[parts.length - 1] ?? '';
  const andInside = parts.slice(0, -1).some((p) => AND.test(` ${p} `));
  if (parts.length === 1 || (!andInside && last.split(AND).length === 2))
    return [...parts.slice(0, -1), ...last.split(AND).map((p) => p.trim())].filter(Boolean);
  return parts;
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
  draft.notes[String(step)] = [...(draft.notes[String(step)] ?? []), content].slice(
    -NOTES_PER_STEP,
  );
  if (!turn.steps) {
    // The topic: the first one named ("a course on X", or the first thing said at step 1);
    // later only a topic stated as such ("the topic is Y") replaces it.
    const topic = draft.topic
      ? statedTopic(content)
      : (extractTopic(content) ?? (step === 1 ? topicOf(content) : undefined));
    if (topic) draft.topic = topic;
    const audience = extractAudience(content);
    if (audience && (!draft.audience || step === 1 || topic)) draft.audience = audience;
    if (step === 2)
      for (const module of modulesIn(content).map((m) => wholeExcerpt(m, MODULE_CHARS)))
        if (!draft.modules.includes(module) && draft.modules.length < MAX_MODULES)
          draft.modules.push(module);
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

/** A note as played back: whole when short, else its start (the draft keeps it whole). */
function playedBack(note: string): string {
  return note.length <= PLAYBACK_CHARS
    ? note
    : `${wholeExcerpt(note, PLAYBACK_CHARS)} (${note.length} characters, kept whole in your draft)`;
}

function quoteLines(texts: string[]): string {
  return texts
    .map(playedBack)
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
