import { AppError } from '@switchyard/shared';
import { curriculumStep, type CourseTemplate, type CurriculumStep } from '../data/catalog';
import type { AgentStep } from '../store/profiles/port';
import { TemplateSearch } from '../retrieval/course-search';
import { titleOf, urlOf } from '../knowledge/documents';
import type { CourseFields } from '../knowledge/kinds';
import type { RetrievedDocument } from '../retrieval/knowledge-retriever';
import type { CourseDraft, OnboardingProgress } from '../store/sessions/port';
import { isConfirmation } from './intents';
import { citation } from './knowledge-answer';
import { extractAudience, extractTopic } from './topic';
import type { Agent, ContextItem, OfflineInput, PreparedTurn, Turn } from './types';

export const ONBOARDING_STEPS = 5;

/** Step n's guide: the agent's own steps (defined as data) or the shipped curriculum guide. */
export function stepGuide(step: number, steps?: AgentStep[]): CurriculumStep {
  const own = steps?.[step - 1];
  if (!steps || steps.length === 0) return curriculumStep(step);
  if (!own)
    throw new AppError('invalid_request', `this agent has ${steps.length} steps`, [
      { field: '/step', reason: `must be <= ${steps.length}` },
    ]);
  return {
    step,
    title: own.title,
    goal: own.goal,
    guidance: [],
    confirm: own.confirm || `Please confirm that step ${step} is complete (reply "done").`,
  };
}

/** How many steps the agent leads through. */
export function stepCount(steps?: AgentStep[]): number {
  return steps && steps.length > 0 ? steps.length : ONBOARDING_STEPS;
}

const SYSTEM_PROMPT =
  'You are the Switchyard course onboarding agent. You guide an instructor through five steps: 1 course ' +
  'topic and objectives; 2 modules and lessons; 3 interactive content and assignments; 4 engagement ' +
  'strategies (quizzes, discussion forums); 5 finalize course and launch plan. Give the guidance of the ' +
  'current step only, tailored to the course, and end by asking the user to confirm the step is complete.';

export function createOnboardingAgent(templates = new TemplateSearch()): Agent {
  return {
    info: {
      name: 'onboarding',
      description: 'Course onboarding in five steps, from topic and objectives to the launch plan',
      usesSteps: true,
    },
    prepare: async (turn) => prepareOnboarding(await templateFinder(templates, turn), turn),
    composeOffline: composeOnboarding,
  };
}

/** Which step a "done"/"yes" confirms: the step just guided, or the previous one when the client already moved on. */
function confirmedStepOf(turn: Turn, step: number): number | undefined {
  if (!isConfirmation(turn.latest)) return undefined;
  const { lastStep, confirmedSteps } = turn.memory.onboarding;
  const candidates = [step, step - 1].filter(
    (s) => s >= 1 && s === lastStep && !confirmedSteps.includes(s),
  );
  return candidates[0];
}

/** Topic and audience named in this turn's messages; later statements win. */
function learnCourseFacts(turn: Turn): Record<string, string> {
  const facts: Record<string, string> = {};
  for (const message of turn.added) {
    if (message.role !== 'user' || isConfirmation(message.content)) continue;
    const topic = extractTopic(message.content);
    const audience = extractAudience(message.content);
    if (topic) facts.courseTopic = topic;
    if (audience) facts.audience = audience;
  }
  return facts;
}

interface FoundTemplate {
  template: CourseTemplate;
  /** The organization's course it was built from. */
  source?: RetrievedDocument;
}

type TemplateFinder = (topic: string) => FoundTemplate | undefined;

/** An outline from the organization's own catalogue: its modules and lessons. */
function templateFromCourse(found: RetrievedDocument): CourseTemplate {
  const course = found.doc.fields as unknown as CourseFields;
  const generic = genericTemplate(course.title);
  return {
    ...generic,
    id: found.doc.id,
    field: course.title,
    modules: course.modules.map((m) =>
      m.lessons.length > 0 ? `${m.title}: ${m.lessons.map((l) => l.title).join(', ')}` : m.title,
    ),
  };
}

/** The organization's courses when it has some (searched for the topic), else the shipped outline templates. */
async function templateFinder(templates: TemplateSearch, turn: Turn): Promise<TemplateFinder> {
  const topic = { ...turn.memory.facts, ...learnCourseFacts(turn) }.courseTopic;
  if (topic && turn.knowledge?.has(['courses'])) {
    const best = (await turn.knowledge.search(topic, ['courses'])).results[0];
    return () => (best ? { template: templateFromCourse(best), source: best } : undefined);
  }
  return (t) => {
    const template = templates.forTopic(t);
    return template ? { template } : undefined;
  };
}

function draftOf(
  facts: Record<string, string>,
  found: FoundTemplate | undefined,
  previous: CourseDraft | undefined,
): CourseDraft | undefined {
  if (!facts.courseTopic) return previous;
  const source = found?.source;
  return {
    topic: facts.courseTopic,
    audience: facts.audience,
    modules: found?.template.modules ?? previous?.modules ?? [],
    basedOn: source
      ? { id: source.doc.id, title: titleOf(source.doc), url: urlOf(source.doc) }
      : previous?.basedOn,
  };
}

/** The first step not confirmed yet: the furthest a conversation may go. */
function firstOpenStep(confirmed: number[]): number {
  let step = 1;
  while (confirmed.includes(step)) step++;
  return step;
}

/** Going back (or staying) is always allowed; going past a step that is not confirmed is not. */
function refuseSkippingAhead(step: number, confirmed: number[], steps?: AgentStep[]): void {
  const open = firstOpenStep(confirmed);
  if (step <= open) return;
  throw new AppError(
    'conflict',
    `step ${step} cannot start yet: step ${open} (${stepGuide(open, steps).title}) is not confirmed. ` +
      `Finish it and confirm (e.g. "done") with step ${open}, or with step ${open + 1} to move on; going back to an earlier step is always possible.`,
    [{ field: '/step', reason: `must be <= ${open} until step ${open} is confirmed` }],
  );
}

function prepareOnboarding(findTemplate: TemplateFinder, turn: Turn): PreparedTurn {
  const step = turn.step ?? 1;
  const facts = { ...turn.memory.facts, ...learnCourseFacts(turn) };
  const confirmedStep = confirmedStepOf(turn, step);
  const previous = turn.memory.onboarding.confirmedSteps;
  const onboarding: OnboardingProgress = {
    confirmedSteps:
      confirmedStep && !previous.includes(confirmedStep)
        ? [...previous, confirmedStep].sort((a, b) => a - b)
        : previous,
    lastStep: step,
  };
  refuseSkippingAhead(step, onboarding.confirmedSteps, turn.steps);
  const topic = facts.courseTopic;
  const found = topic ? findTemplate(topic) : undefined;
  const draft = draftOf(facts, found, turn.memory.onboarding.draft);
  if (draft) onboarding.draft = draft;
  const context: ContextItem[] = [{ kind: 'curriculum_step', step: stepGuide(step, turn.steps) }];
  if (found) context.push({ kind: 'course_template', template: found.template });
  if (found?.source) context.push({ kind: 'knowledge', found: found.source });
  const known = [topic && `course topic: ${topic}`, facts.audience && `audience: ${facts.audience}`]
    .filter(Boolean)
    .join('; ');
  return {
    systemPrompt: `${SYSTEM_PROMPT}\nCurrent step: ${step}. Confirmed steps: ${onboarding.confirmedSteps.join(', ') || 'none'}.${known ? ` Known: ${known}.` : ''}`,
    context,
    memory: { facts, onboarding },
    signals: { confirmedStep },
  };
}

function composeOnboarding({ prepared, step: requested }: OfflineInput): string {
  const step = requested ?? 1;
  const { facts } = prepared.memory;
  const steps = prepared.steps;
  const course = facts.courseTopic
    ? { topic: facts.courseTopic, audience: facts.audience }
    : undefined;
  if (prepared.signals.confirmedStep === step)
    return acknowledgeCurrent(step, course?.topic, steps);

  const template = prepared.context.flatMap((i) =>
    i.kind === 'course_template' ? [i.template] : [],
  )[0];
  const source = prepared.context.flatMap((i) => (i.kind === 'knowledge' ? [i.found] : []))[0];
  const guide = stepGuide(step, steps);
  const parts: string[] = [];
  if (prepared.signals.confirmedStep) {
    parts.push(
      `Step ${prepared.signals.confirmedStep} (${stepGuide(prepared.signals.confirmedStep, steps).title}) is confirmed. ✅`,
    );
  }
  parts.push(`**Step ${step} of ${stepCount(steps)}: ${guide.title}**`);
  parts.push(
    course
      ? `For your course on **${course.topic}**${course.audience ? ` for ${course.audience}` : ''}: ${guide.goal}`
      : guide.goal,
  );
  if (guide.guidance.length > 0) parts.push(guide.guidance.map((g) => `- ${g}`).join('\n'));
  // Suggestions follow the shipped five-step curriculum; an agent's own steps say what they need themselves.
  if (!steps)
    parts.push(course ? tailoredSuggestions(step, course.topic, template) : askForTopic(step));
  if (course && source && step === 2)
    parts.push(`This outline follows our course ${citation(source)}.`);
  parts.push(guide.confirm);
  return parts.join('\n\n');
}

function acknowledgeCurrent(step: number, topic: string | undefined, steps?: AgentStep[]): string {
  const guide = stepGuide(step, steps);
  const forCourse = topic ? ` for **${topic}**` : '';
  if (steps && step >= steps.length)
    return `Step ${step} (${guide.title}) is confirmed. ✅ That completes all ${steps.length} steps.`;
  if (step >= ONBOARDING_STEPS) {
    return `Your launch plan${forCourse} is confirmed. ✅ That completes all ${ONBOARDING_STEPS} onboarding steps: the course is ready to publish. Good luck with the launch!`;
  }
  const next = stepGuide(step + 1, steps);
  return (
    `Step ${step} (${guide.title})${forCourse} is confirmed. ✅\n\n` +
    `Next is step ${step + 1}: **${next.title}**. ${next.goal}\n\n` +
    `Send your next message with step ${step + 1} when you're ready, or tell me what to change in step ${step}.`
  );
}

function askForTopic(step: number): string {
  return step === 1
    ? 'To tailor the next steps, tell me your course topic and audience, e.g. "a course on Python for data analysis for beginners".'
    : "You haven't told me the course topic yet; name it and I'll tailor this step to your course.";
}

/** Modules used when no outline template fits the topic. */
function genericTemplate(topic: string): CourseTemplate {
  return {
    id: 'generic',
    field: topic,
    keywords: [],
    modules: [
      `Introduction to ${topic}`,
      'Core concepts',
      'Methods and tools',
      'Guided practice',
      'Project',
      'Review and next steps',
    ],
    activities: [
      'short practice exercises after each lesson',
      'a worked example to follow along',
      'a peer-reviewed mini project',
    ],
    assignment:
      'a final project applying the course to a real situation, graded on accuracy, completeness and reflection',
    quizIdea: 'questions that apply a concept to a short scenario',
  };
}

function tailoredSuggestions(
  step: number,
  topic: string,
  found: CourseTemplate | undefined,
): string {
  const template = found ?? genericTemplate(topic);
  const fieldNote = found ? ` (an outline that works well for ${found.field} courses)` : '';
  switch (step) {
    case 1:
      return (
        `Suggested learning objectives for ${topic}:\n` +
        `- Explain the key concepts and vocabulary of ${topic}\n` +
        `- Apply ${topic} to a realistic task step by step\n` +
        `- Create a small piece of work that shows ${topic} in practice\n` +
        `- Evaluate their own results and know where to go next`
      );
    case 2:
      return `Suggested modules for ${topic}${fieldNote}:\n${template.modules.map((m, i) => `${i + 1}. ${m}`).join('\n')}`;
    case 3:
      return (
        `Activities that fit ${topic}:\n${template.activities.map((a) => `- ${a}`).join('\n')}\n\n` +
        `Graded assignment idea: ${template.assignment}.`
      );
    case 4:
      return (
        `For ${topic}, try module quizzes with ${template.quizIdea}, and open the forum with a prompt such as ` +
        `"How will you use ${topic} in your own work or life?".`
      );
    default:
      return (
        `Launch plan for ${topic}:\n` +
        `- 2 weeks before: publish the course page and open enrolment with an early-bird price\n` +
        `- 1 week before: send the announcement email and a social post with a preview lesson\n` +
        `- Launch day: welcome message and the first module's discussion prompt\n` +
        `- 1 week after: feedback survey and fixes from the first learners`
      );
  }
}
