import type { CompleteRequest } from '@switchyard/shared/proto/content/v1';
import type { Completion, CompletionService } from '../src/responders/completions';
import { ContentModelResponder, MAX_TOOL_ROUNDS } from '../src/responders/content-model';
import type { ResponderInput } from '../src/responders/responder';
import type { Toolbox } from '../src/tools/toolbox';
import { expect } from './chai';

/** A model that always asks for a tool when offered one, taking delayMs per round. */
class ToolHungryModel implements CompletionService {
  readonly requests: CompleteRequest[] = [];
  constructor(private readonly delayMs = 0) {}

  async complete(request: CompleteRequest): Promise<Completion> {
    this.requests.push(structuredClone(request));
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const offered = (request.tools ?? []).length > 0;
    return {
      text: offered ? '' : 'final answer',
      model: 'm',
      tokensInput: 100,
      tokensOutput: 10,
      cost: 0.5,
      toolCalls: offered
        ? [{ id: `c${this.requests.length}`, name: 'search_knowledge', arguments: '{"query":"x"}' }]
        : [],
    };
  }

  completeStream(): Promise<Completion> {
    throw new Error('not used');
  }
}

const toolbox: Toolbox = {
  definitions: [
    { name: 'search_knowledge', description: 'search', parameters: { type: 'object' } },
  ],
  retrieved: [],
  run: async () => '{"results":[]}',
};

const input = {
  agent: 'chat',
  systemPrompt: 'S',
  context: [],
  history: [{ role: 'user', content: 'q' }],
  tools: toolbox,
} as unknown as ResponderInput;
const call = { model: 'm', context: { organization: 'o', keyId: 'k', requestId: 'r' } };

describe('tool loop', () => {
  it(`offers tools for at most ${MAX_TOOL_ROUNDS} rounds, then asks for the answer; usage is the sum of every round`, async () => {
    const model = new ToolHungryModel();
    const output = await new ContentModelResponder(model).respond(input, call);
    expect(model.requests.map((r) => (r.tools ?? []).length)).to.deep.equal([1, 1, 1, 1, 1, 0]);
    expect(output).to.deep.equal({
      reply: 'final answer',
      model: 'm',
      tokensInput: 600,
      tokensOutput: 60,
      cost: 3,
      replyTokens: 10,
    });
    const last = model.requests.at(-1)!.messages ?? [];
    expect(last.filter((m) => m.role === 'tool')).to.have.length(5);
  });

  it('stops offering tools when the deadline leaves no time for another round and the answer', async () => {
    // Rounds of 400 ms against 1,400 ms: after round 1 there is room for 2 more (1,000 > 800), after round 2
    // not (600 < 800). The margins are 200 ms, so a loaded machine's scheduling does not decide the outcome.
    const model = new ToolHungryModel(400);
    const output = await new ContentModelResponder(model).respond(input, {
      ...call,
      deadline: Date.now() + 1400,
    });
    expect(model.requests.map((r) => (r.tools ?? []).length)).to.deep.equal([1, 1, 0]);
    expect(output.reply).to.equal('final answer');
  });
});
