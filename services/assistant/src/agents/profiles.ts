import { AppError, type ErrorDetail } from '@switchyard/shared';
import { AGENT_PROFILE_FIELDS, AGENT_TOOLS } from '@switchyard/shared/contracts';
import type { KnowledgeStore } from '../store/knowledge/port';
import type { ModelInfo__Output } from '@switchyard/shared/proto/content/v1';
import {
  BASE_AGENTS,
  type AgentProfile,
  type AgentProfileStore,
  type BaseAgent,
} from '../store/profiles/port';
import { BUILTIN_MODEL, isBuiltinModel } from '../responders/builtin';

export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** Step agents answer steps 1..5 (the step field of the public interface). */
const MAX_STEPS = 5;

/** A profile as sent: base may be '' (picked: the built-in of the same name, else onboarding with steps, else chat). */
export type ProfileInput = Omit<
  AgentProfile,
  'organization' | 'createdAt' | 'updatedAt' | 'base'
> & { base: string };

function isBase(value: string): value is BaseAgent {
  return (BASE_AGENTS as readonly string[]).includes(value);
}

function baseOf(input: ProfileInput): string {
  if (isBase(input.name)) return input.name;
  return input.base || (input.steps.length > 0 ? 'onboarding' : 'chat');
}

function problemsOf(input: ProfileInput, base: string, known: Set<string>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (!AGENT_NAME_PATTERN.test(input.name))
    problems.push({ field: '/name', reason: `must match ${AGENT_NAME_PATTERN.source}` });
  if (!isBase(base))
    problems.push({ field: '/base', reason: `must be one of ${BASE_AGENTS.join(', ')}` });
  if (isBase(input.name) && input.base && input.base !== input.name)
    problems.push({ field: '/base', reason: `the ${input.name} agent keeps its own base` });
  if (input.instructions.length > 20_000)
    problems.push({ field: '/instructions', reason: 'must be at most 20000 characters' });
  input.tools.forEach((tool, i) => {
    if (!(AGENT_TOOLS as readonly string[]).includes(tool))
      problems.push({ field: `/tools/${i}`, reason: `must be one of ${AGENT_TOOLS.join(', ')}` });
  });
  input.collections.forEach((name, i) => {
    if (!known.has(name))
      problems.push({
        field: `/collections/${i}`,
        reason: `no knowledge collection '${name}' in this organization`,
      });
  });
  if (input.steps.length > MAX_STEPS)
    problems.push({ field: '/steps', reason: `must have at most ${MAX_STEPS} items` });
  if (input.steps.length > 0 && base !== 'onboarding')
    problems.push({ field: '/steps', reason: 'only for agents based on onboarding' });
  input.steps.forEach((step, i) => {
    if (!step.title.trim()) problems.push({ field: `/steps/${i}/title`, reason: 'is required' });
  });
  return problems;
}

/** Validates and stores an organization's agent profile (create or replace). */
export async function putProfile(
  profiles: AgentProfileStore,
  knowledge: KnowledgeStore,
  organization: string,
  input: ProfileInput,
  models: () => Promise<ModelInfo__Output[]>,
  now = new Date(),
): Promise<AgentProfile> {
  const base = baseOf(input);
  const known = new Set((await knowledge.listCollections(organization)).map((c) => c.name));
  const problems = problemsOf(input, base, known);
  const model = input.model.trim();
  if (model && !isBuiltinModel(model)) {
    const registry = await models();
    const found = registry.find((m) => m.id === model || m.aliases.includes(model));
    const chat = registry.filter((m) => m.capabilities.includes('chat')).map((m) => m.id);
    if (!found)
      problems.push({
        field: '/model',
        reason: `unknown model '${model}'; models with the chat capability: ${[BUILTIN_MODEL, ...chat.filter((id) => id !== BUILTIN_MODEL)].join(', ')}`,
      });
    else if (!found.capabilities.includes('chat'))
      problems.push({
        field: '/model',
        reason: `model '${model}' has no chat capability (it has ${found.capabilities.join(', ') || 'none'})`,
      });
  }
  if (problems.length > 0)
    throw new AppError(
      'invalid_request',
      `invalid agent profile: ${problems[0]?.field} ${problems[0]?.reason}`,
      problems,
    );
  const existing = await profiles.get(organization, input.name);
  const at = now.toISOString();
  const profile: AgentProfile = {
    organization,
    name: input.name,
    description: input.description,
    instructions: input.instructions,
    model: input.model.trim(),
    collections: [...new Set(input.collections)],
    tools: [...new Set(input.tools)],
    greeting: input.greeting,
    steps: input.steps.map((s) => ({ title: s.title.trim(), goal: s.goal, confirm: s.confirm })),
    base: base as BaseAgent,
    escalation: {
      message: input.escalation.message.trim(),
      contact: input.escalation.contact.trim(),
      channel: input.escalation.channel.trim(),
    },
    createdAt: existing?.createdAt ?? at,
    updatedAt: at,
  };
  await profiles.put(profile);
  return profile;
}

/** What a model does with a profile's fields (the profile's answer says so). */
export interface ModelSupport {
  model: string;
  honoured: string[];
  ignored: string[];
  note: string;
}

/** The fields a model may follow or not (base is the agent's behaviour, whatever the model). */
const PROFILE_FIELDS: string[] = AGENT_PROFILE_FIELDS.filter((field) => field !== 'base');

/** The builtin engine composes replies from the organization's data: it cannot follow free text or call tools. */
export function modelSupport(model: string): ModelSupport {
  if (isBuiltinModel(model))
    return {
      model: BUILTIN_MODEL,
      honoured: PROFILE_FIELDS.filter((f) => f !== 'instructions' && f !== 'tools'),
      ignored: ['instructions', 'tools'],
      note: 'The builtin engine does not follow free-text instructions or call tools; set model to a registry model with the chat capability for those.',
    };
  return { model, honoured: PROFILE_FIELDS, ignored: [], note: '' };
}
