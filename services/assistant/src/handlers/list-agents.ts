import type { ListAgentsResponse } from '@switchyard/shared/generated/switchyard/assistant/v1/ListAgentsResponse';
import type { AgentRegistry } from '../agents/registry';

export function createListAgentsHandler(agents: AgentRegistry) {
  return async function listAgents(): Promise<ListAgentsResponse> {
    return {
      agents: agents.list().map((info) => ({ name: info.name, description: info.description, uses_steps: info.usesSteps })),
    };
  };
}
