import { normalize } from '../language/normalize';
import { titleOf, urlOf } from '../knowledge/documents';
import type { EventFields } from '../knowledge/kinds';
import { citation, describeQuery, eventTime, knowledgeLine } from '../agents/knowledge-answer';
import { stepCount, stepGuide } from '../agents/onboarding';
import { handOverText, notedReferences, offer, REFERENCE_QUESTION } from '../agents/support';
import type { ContextItem, PreparedTurn } from '../agents/types';
import type { RetrievedDocument } from '../retrieval/knowledge-retriever';
import { keepRetrievedLinks } from './citations';

/**
 * Grounded composition: the service decides what is true for a turn (the facts with their ids,
 * the filters in force, the hand-over text and contacts, the references noted, the citations);
 * a model only words that material. What the service owns is composed around the model's words,
 * never left to it, so a tiny model and a hosted one give the same facts, links and contacts.
 */

/** The service's own text around a model's words this turn. */
export interface Frame {
  /** Before the model's words: references noted. */
  opening: string[];
  /** After them: the hand-over and its contacts, the offer of a person, the step's protocol. */
  closing: string[];
}

/** Sources listed after a model's words at most. */
const MAX_SOURCES = 5;
/** Fields said elsewhere in a fact block (title line, dates in the venue's time) or not facts (tags). */
const SAID_FIELDS = new Set([
  'title',
  'url',
  'tags',
  'startsAt',
  'endsAt',
  'timeZone',
  'modules',
  'description',
  'body',
  'text',
  'price',
  'currency',
  'venue',
  'city',
  'level',
]);

/** The text the service adds around the model's words, from what the agent decided. */
export function frameOf(prepared: PreparedTurn, step?: number): Frame {
  const { signals, memory, profile } = prepared;
  const opening: string[] = [];
  const closing: string[] = [];
  const noted = notedReferences(signals.newFacts);
  if (noted) opening.push(noted);
  if (signals.handOver) {
    closing.push(handOverText(profile));
    if (memory.dialogue?.support?.awaitingReference) closing.push(REFERENCE_QUESTION);
  } else if ((signals.unanswered || signals.noKnowledge) && memory.dialogue?.support?.offered)
    closing.push(offer(profile));
  if (step !== undefined) {
    opening.push(...stepStatus(prepared, step));
    closing.push(...stepClosing(prepared, step));
  }
  return { opening, closing };
}

/** What the service recorded of a step conversation: steps confirmed and open, the draft in the user's words. */
function stepStatus(prepared: PreparedTurn, step: number): string[] {
  const { steps, signals, memory } = prepared;
  const draft = memory.onboarding.draft;
  const describe = (numbers: number[]) =>
    numbers.map((n) => `step ${n} (${stepGuide(n, steps).title})`).join(', ');
  const lines: string[] = [];
  if (signals.confirmedStep !== undefined)
    lines.push(
      `Step ${signals.confirmedStep} (${stepGuide(signals.confirmedStep, steps).title}) is confirmed. ✅`,
    );
  if (signals.openSteps?.length) lines.push(`Not confirmed yet: ${describe(signals.openSteps)}.`);
  if (draft?.topic)
    lines.push(
      `Your course: **${draft.topic}**${draft.audience ? ` (for ${draft.audience})` : ''}.`,
    );
  if (!steps && step === 2 && draft && draft.modules.length > 0)
    lines.push(`Modules so far:\n${draft.modules.map((m, i) => `${i + 1}. ${m}`).join('\n')}`);
  return lines;
}

/** What ends a step's reply: how to confirm it, or what comes next once it is confirmed. */
function stepClosing(prepared: PreparedTurn, step: number): string[] {
  const { steps, signals } = prepared;
  if (signals.confirmedStep === step) {
    if (step >= stepCount(steps)) return [`That completes all ${stepCount(steps)} steps.`];
    return [`Next is step ${step + 1}: **${stepGuide(step + 1, steps).title}**.`];
  }
  const confirm = stepGuide(step, steps).confirm.trim().replace(/\.$/, '');
  if (!steps) return [confirm ? `${confirm}.` : ''].filter(Boolean);
  return [
    confirm
      ? `When this step is complete (${confirm.charAt(0).toLowerCase()}${confirm.slice(1)}), reply "done".`
      : 'When this step is complete, reply "done".',
  ];
}

function when(value: unknown, found: RetrievedDocument): string | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  const fields = found.doc.fields as unknown as EventFields;
  return eventTime({ ...fields, startsAt: value }, found.collection.timeZone);
}

function scalarText(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'object')
    return Array.isArray(value)
      ? value.map(scalarText).filter(Boolean).join(', ')
      : Object.entries(value)
          .map(([k, v]) => `${k}: ${scalarText(v) ?? ''}`)
          .join('; ');
  return String(value);
}

/** One retrieved record as a model is given it: its id, then every fact of it in words. */
export function factBlock(item: ContextItem, index: number): string {
  if (item.kind === 'curriculum_step') {
    const s = item.step;
    return `[${index}] Step ${s.step}: ${s.title}. ${s.goal}\n- ${s.guidance.join('\n- ')}\n${s.confirm}`;
  }
  const { found } = item;
  const fields = found.doc.fields as Record<string, unknown>;
  const lines = [`[${index}] id ${found.collection.name}/${found.doc.id}: ${knowledgeLine(found)}`];
  const ends = when(fields.endsAt, found);
  if (ends) lines.push(`Ends: ${ends}`);
  for (const [name, value] of Object.entries(fields)) {
    if (SAID_FIELDS.has(name)) continue;
    const text = scalarText(value);
    if (text) lines.push(`${name}: ${text}`);
  }
  if (found.passage.trim()) lines.push(found.passage.trim());
  return lines.join('\n');
}

/** The question as the service read it ("workshops for kids in Leipzig from Sat 12 Dec to Sun 13 Dec"). */
export function filtersInForce(prepared: PreparedTurn): string | undefined {
  const retrieval = prepared.signals.knowledge;
  if (!retrieval) return undefined;
  const first = retrieval.results[0]?.collection ?? retrieval.collections[0];
  if (!first) return undefined;
  const query = retrieval.queries.get(first.name);
  return describeQuery(query, first, retrieval.results.length);
}

function knowledgeOf(context: ContextItem[]): RetrievedDocument[] {
  return context.flatMap((item) => (item.kind === 'knowledge' ? [item.found] : []));
}

/** The records a reply names by title, else every record it was given (with a link), at most MAX_SOURCES. */
function cited(text: string, context: ContextItem[]): RetrievedDocument[] {
  const linked = knowledgeOf(context).filter((found) => urlOf(found.doc));
  const said = normalize(text);
  const named = linked.filter((found) => said.includes(normalize(titleOf(found.doc))));
  const unique = (list: RetrievedDocument[]) =>
    list.filter((f, i) => list.findIndex((g) => urlOf(g.doc) === urlOf(f.doc)) === i);
  return unique(named.length > 0 ? named : linked).slice(0, MAX_SOURCES);
}

/**
 * The reply a user gets from a model's words: links the model wrote reduced to their text (the
 * service links what was retrieved), the frame around it, then the sources it drew on.
 */
export function composeGrounded(text: string, prepared: PreparedTurn, frame: Frame): string {
  const words = keepRetrievedLinks(text.trim(), new Set());
  const sources = cited(words, prepared.context);
  const parts = [...frame.opening, words, ...frame.closing];
  if (sources.length > 0) parts.push(`Sources: ${sources.map(citation).join(' · ')}`);
  return parts.filter((p) => p.trim() !== '').join('\n\n');
}
