import { AppError, type CallContext } from '@switchyard/shared';
import type { AgentProfile as ProfileMessage } from '@switchyard/shared/generated/switchyard/assistant/v1/AgentProfile';
import type { AgentProfile__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/AgentProfile';
import type { AgentRef__Output } from '@switchyard/shared/generated/switchyard/assistant/v1/AgentRef';
import type { ListAgentsResponse } from '@switchyard/shared/generated/switchyard/assistant/v1/ListAgentsResponse';
import type { AgentDirectory } from '../agents/directory';
import { putProfile } from '../agents/profiles';
import type { KnowledgeStore } from '../knowledge/knowledge-store';
import type { AgentProfile, AgentProfileStore } from '../store/agent-profile-store';

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

export interface AgentHandlerDeps {
  directory: AgentDirectory;
  profiles: AgentProfileStore;
  knowledge: KnowledgeStore;
}

/** Agent profiles as data: list (built-ins and own), put, get, delete; all per organization. */
export function createAgentHandlers({ directory, profiles, knowledge }: AgentHandlerDeps) {
  return {
    listAgents: async (_req: unknown, ctx: CallContext): Promise<ListAgentsResponse> => {
      // Calls without an organization (health probes, tools) see the built-ins.
      const listed = await directory.list(ctx.organization ?? '');
      return {
        agents: listed.agents.map((info) => ({
          name: info.name,
          description: info.description,
          uses_steps: info.usesSteps,
        })),
        profiles: listed.profiles.map(profileMessage),
      };
    },
    putAgent: async (req: AgentProfile__Output, ctx: CallContext) =>
      profileMessage(
        await putProfile(profiles, knowledge, organizationOf(ctx), {
          name: req.name,
          description: req.description,
          instructions: req.instructions,
          model: req.model,
          collections: req.collections,
          tools: req.tools,
          greeting: req.greeting,
          steps: req.steps.map((s) => ({ title: s.title, goal: s.goal, confirm: s.confirm })),
          base: req.base,
        }),
      ),
    /** A stored profile; a built-in without an override answers as its default profile (no dates). */
    getAgent: async (req: AgentRef__Output, ctx: CallContext): Promise<ProfileMessage> => {
      const resolved = await directory.resolve(organizationOf(ctx), req.name);
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
    },
    deleteAgent: async (req: AgentRef__Output, ctx: CallContext) => {
      const deleted = await profiles.delete(organizationOf(ctx), req.name);
      if (!deleted)
        throw AppError.notFound(`the organization has no stored agent profile '${req.name}'`);
      return { deleted };
    },
  };
}
