import { AppError, type CallContext, type ContentServiceRpc } from '@switchyard/shared';
import type { Agree, SameFields } from '@switchyard/shared/contracts';
import type {
  AgentProfile as ProfileMessage,
  AgentProfile__Output,
  AgentRef__Output,
  ListAgentsResponse,
} from '@switchyard/shared/proto/assistant/v1';
import type { AgentDirectory } from '../agents/directory';
import { modelSupport, putProfile } from '../agents/profiles';
import type { KnowledgeStore } from '../store/knowledge/port';
import { NO_ESCALATION, type AgentProfile, type AgentProfileStore } from '../store/profiles/port';

/** A stored profile and the message name the same fields, but for the organization and the dates. */
export type ProfileMessageAgrees = Agree<
  SameFields<
    Omit<AgentProfile, 'organization' | 'createdAt' | 'updatedAt'>,
    Omit<ProfileMessage, 'serving' | 'created_at' | 'updated_at'>
  >
>;

/** A profile as answered: its fields, and what the model that serves it does with them. */
export function profileMessage(p: AgentProfile, defaultModel: string): ProfileMessage {
  const { organization: _organization, createdAt, updatedAt, ...fields } = p;
  return {
    ...fields,
    serving: modelSupport(p.model || defaultModel),
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

function organizationOf(context: CallContext): string {
  if (!context.organization) throw new AppError('unauthorized', 'the call carries no organization');
  return context.organization;
}

/** What the agent-profile handlers need. */
export interface AgentHandlerDeps {
  directory: AgentDirectory;
  profiles: AgentProfileStore;
  knowledge: { store: KnowledgeStore };
  /** The registry's models (a profile's model must exist and have the chat capability). */
  models: Pick<ContentServiceRpc, 'listModels'>;
  /** The model a profile without one is served by. */
  defaultModel: string;
}

/** ListAgents: the built-ins (as overridden) and the organization's own agents. */
export async function listAgents(
  { directory, defaultModel }: AgentHandlerDeps,
  _request: unknown,
  context: CallContext,
): Promise<ListAgentsResponse> {
  // Calls without an organization (health probes, tools) see the built-ins.
  const listed = await directory.list(context.organization ?? '');
  return {
    agents: listed.agents.map((info) => ({
      name: info.name,
      description: info.description,
      uses_steps: info.usesSteps,
      searched_kinds: info.searchedKinds,
    })),
    profiles: listed.profiles.map((p) => profileMessage(p, defaultModel)),
  };
}

/** PutAgent: creates or replaces one of the organization's profiles, validated first. */
export async function putAgent(
  { profiles, knowledge, models, defaultModel }: AgentHandlerDeps,
  request: AgentProfile__Output,
  context: CallContext,
): Promise<ProfileMessage> {
  const registry = async () => (await models.listModels({}, context)).models;
  const stored = await putProfile(
    profiles,
    knowledge.store,
    organizationOf(context),
    {
      name: request.name,
      description: request.description,
      instructions: request.instructions,
      model: request.model,
      collections: request.collections,
      tools: request.tools,
      greeting: request.greeting,
      steps: request.steps.map((s) => ({ title: s.title, goal: s.goal, confirm: s.confirm })),
      base: request.base,
      escalation: { ...NO_ESCALATION, ...request.escalation },
    },
    registry,
  );
  return profileMessage(stored, defaultModel);
}

/** GetAgent: a stored profile; a built-in without an override answers as its default profile (no dates). */
export async function getAgent(
  { directory, defaultModel }: AgentHandlerDeps,
  request: AgentRef__Output,
  context: CallContext,
): Promise<ProfileMessage> {
  const resolved = await directory.resolve(organizationOf(context), request.name);
  if (resolved.profile) return profileMessage(resolved.profile, defaultModel);
  const info = resolved.agent.info;
  return {
    name: info.name,
    description: info.description,
    base: info.name,
    instructions: '',
    model: '',
    collections: [],
    tools: [],
    greeting: '',
    steps: [],
    escalation: NO_ESCALATION,
    serving: modelSupport(defaultModel),
    created_at: '',
    updated_at: '',
  };
}

export async function deleteAgent(
  { profiles }: AgentHandlerDeps,
  request: AgentRef__Output,
  context: CallContext,
): Promise<{ deleted: boolean }> {
  const deleted = await profiles.delete(organizationOf(context), request.name);
  if (!deleted)
    throw AppError.notFound(`the organization has no stored agent profile '${request.name}'`);
  return { deleted };
}
