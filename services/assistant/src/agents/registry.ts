import { AppError } from '@switchyard/shared';
import type { Agent, AgentInfo } from './types';
import { createChatAgent } from './chat';
import { createSupportAgent } from './support';
import { createOnboardingAgent } from './onboarding';

export class AgentRegistry {
  private readonly agents: Map<string, Agent>;

  constructor(agents: Agent[]) {
    this.agents = new Map(agents.map((agent) => [agent.info.name, agent]));
  }

  /** The agent profile by name; an unknown name is a 404 like an unknown path. */
  get(name: string): Agent {
    const agent = this.agents.get(name);
    if (!agent)
      throw AppError.notFound(`unknown agent profile '${name}'; known: ${this.names().join(', ')}`);
    return agent;
  }

  names(): string[] {
    return [...this.agents.keys()].sort();
  }

  list(): AgentInfo[] {
    return this.names().map((name) => this.get(name).info);
  }
}

export function createAgentRegistry(): AgentRegistry {
  return new AgentRegistry([createChatAgent(), createSupportAgent(), createOnboardingAgent()]);
}
