import { AppError, type CallContext } from '@switchyard/shared';
import type { AgentProfile as ProfileMessage } from '@switchyard/shared/generated/switchyard/assistant/v1/AgentProfile';
import type { AgentProfile__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/AgentProfile';
import type { AgentRef__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/AgentRef';
import type { ListAgentsResponse } from '@switchyard/shared/generated/switchyard/assistant/v1/ListAgentsResponse';
import type { AgentDirectory } from '../agents/directory';
import { putProfile } from '../agents/profiles';
import type { KnowledgeStore } from '../store/knowledge/port';
import type { AgentProfile, AgentProfileStore } from '../store/profiles/port';

export function profileMessage(p: AgentProfile): ProfileMessage {
  return {
    name: p.name,
    description: p.description,
    instructions: p.instructions,
    model: p.model,
    collections: p.collections,
    tools: p.tools,
    greeting: p.greeting,
    steps: p.steps,
    base: p.base,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
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
}

/** ListAgents: the built-ins (as overridden) and the organization's own agents. */
export async function listAgents(
  { directory }: AgentHandlerDeps,
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
    })),
    profiles: listed.profiles.map(profileMessage),
  };
}

/** PutAgent: creates or replaces one of the organization's profiles, validated first. */
export async function putAgent(
  { profiles, knowledge }: AgentHandlerDeps,
  request: AgentProfile__Output,
  context: CallContext,
): Promise<ProfileMessage> {
  return profileMessage(
    await putProfile(profiles, knowledge.store, organizationOf(context), {
      name: request.name,
      description: request.description,
      instructions: request.instructions,
      model: request.model,
      collections: request.collections,
      tools: request.tools,
      greeting: request.greeting,
      steps: request.steps.map((s) => ({ title: s.title, goal: s.goal, confirm: s.confirm })),
      base: request.base,
    }),
  );
}

/** GetAgent: a stored profile; a built-in without an override answers as its default profile (no dates). */
export async function getAgent(
  { directory }: AgentHandlerDeps,
  request: AgentRef__Output,
  context: CallContext,
): Promise<ProfileMessage> {
  const resolved = await directory.resolve(organizationOf(context), request.name);
  if (resolved.profile) return profileMessage(resolved.profile);
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
