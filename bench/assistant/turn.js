#!/usr/bin/env node
'use strict';
/**
 * The assistant's own CPU per chat turn (no gRPC, Kafka or database: in-memory stores, the
 * model answered by a stand-in with bench:gateway's mock reply), so what is measured is the
 * turn's work in this process: the agent's preparation, compaction, the grounding check, the
 * session's merge and save. `--turns-per-session` > 1 sends the whole conversation each turn, as
 * the interface describes, to show what a growing session costs. Prints figures only.
 *
 *   npm run build
 *   node bench/assistant/turn.js [--turns 2000] [--turns-per-session 1] [--agent chat]
 */
const { parseArgs } = require('node:util');
const { UsagePublisher, createInMemorySharedState } = require('@switchyard/shared');
const { silentLogger } = require('@switchyard/shared/testing');
const dist = (file) => require(`../../services/assistant/dist/src/${file}`);
const { AgentDirectory } = dist('agents/directory.js');
const { createAgentRegistry } = dist('agents/registry.js');
const { SessionLock } = dist('conversation/session-lock.js');
const { reply } = dist('handlers/reply.js');
const { BuiltinResponder } = dist('responders/builtin.js');
const { ContentModelResponder } = dist('responders/content-model.js');
const { ModelRouter } = dist('responders/model-router.js');
const { InMemorySessionStore } = dist('store/sessions/memory.js');

const { values: args } = parseArgs({
  options: {
    turns: { type: 'string', default: '2000' },
    'turns-per-session': { type: 'string', default: '1' },
    agent: { type: 'string', default: 'chat' },
  },
});
const TURNS = Number(args.turns);
const PER_SESSION = Number(args['turns-per-session']);
/** bench:gateway's mock upstream reply and usage. */
const MOCK = {
  text: 'Trail shoes built for mud, rock and the long way home.',
  model: 'bench-gpt',
  tokensInput: 24,
  tokensOutput: 12,
  cost: 0,
  toolCalls: [],
};
const QUESTIONS = [
  'Which shoes suit muddy trails?',
  'And for rocky ground?',
  'What do they cost?',
  'Anything for kids this weekend?',
];

async function main() {
  const agents = createAgentRegistry();
  const completions = { complete: async () => MOCK, completeStream: async () => MOCK };
  const bus = { publish: async () => undefined };
  const deps = {
    directory: new AgentDirectory(agents),
    lock: new SessionLock(createInMemorySharedState().locks),
    sessions: new InMemorySessionStore(),
    responder: new ModelRouter(
      new BuiltinResponder(agents),
      new ContentModelResponder(completions, 3000),
      'bench-gpt',
    ),
    usage: new UsagePublisher(bus, 'assistant', silentLogger()),
    historyLimit: 50,
    historyTokenBudget: 3000,
    messageMaxTokens: 4000,
  };
  const context = { organization: 'org_bench', keyId: 'key_bench', requestId: '' };
  const turn = async (i) => {
    const session = Math.floor(i / PER_SESSION);
    const messages = [];
    for (let k = 0; k <= i % PER_SESSION; k++) {
      messages.push({ role: 'user', content: QUESTIONS[k % QUESTIONS.length] });
      if (k < i % PER_SESSION) messages.push({ role: 'assistant', content: MOCK.text });
    }
    return reply(
      deps,
      {
        agent: args.agent,
        user_id: 'u-bench',
        session_id: `s-${session}`,
        messages,
        model: 'bench-gpt',
        time_zone: '',
      },
      { ...context, requestId: `req_${i}` },
    );
  };
  for (let i = 0; i < 50; i++) await turn(i + TURNS); // warm-up, sessions of their own
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  let overruled = 0;
  for (let i = 0; i < TURNS; i++) if ((await turn(i)).reply !== MOCK.text) overruled++;
  const used = process.cpuUsage(cpu);
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(
    `${TURNS} turns (${PER_SESSION} per session, agent ${args.agent}): ` +
      `CPU ${((used.user + used.system) / 1000 / TURNS).toFixed(3)} ms per turn, ` +
      `wall ${(wall / TURNS).toFixed(3)} ms; replies other than the model's words: ${overruled}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
