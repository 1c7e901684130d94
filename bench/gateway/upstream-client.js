'use strict';
/**
 * node bench/gateway/upstream-client.js [--calls 4000] [--concurrency 32] [--streams 200]
 *   [--start-ms 0.5] [--rounds 3] [--before <checkout>]
 *
 * Content's upstream HTTP client alone (ChatClient from a built checkout's dist) against the
 * bench's mock upstream, in this process: CPU per call (process.cpuUsage, so little moved by the
 * machine's load) for a completion through the openai SDK's fetch, a relayed completion and a
 * relayed stream, `--calls` each at `--concurrency`; then bursts of `--streams` paced streams,
 * each started by a request to a node:http server here that spends `--start-ms` of CPU first (a
 * gateway's start) and relays the stream: when the upstream requests reached the mock (first /
 * p50 / last, from the burst's start) and the first event at the client. With --before, the same
 * against another built checkout, alternating round by round. It prints figures, never fails on
 * a time.
 */
const http = require('node:http');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { startMockUpstream } = require('./targets');
const { percentile } = require('./measure');

const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '32' },
    streams: { type: 'string', default: '200' },
    'start-ms': { type: 'string', default: '0.5' },
    rounds: { type: 'string', default: '3' },
    before: { type: 'string', default: '' },
  },
});
const calls = Number(args.calls);
const concurrency = Number(args.concurrency);
const streams = Number(args.streams);
const startMs = Number(args['start-ms']);

/** ChatClient of the checkout at `root`, on the mock, with room for every stream at once. */
function clientOf(root, upstream) {
  const dist = path.join(root, 'services/content/dist/src/models');
  const load = (file) => require(path.join(dist, file));
  const OpenAI = require(
    require.resolve('openai', { paths: [path.join(root, 'services/content')] }),
  );
  const { ChatClient } = load('openai/chat-client.js');
  const { upstreamFetch } = load('openai/upstream-fetch.js');
  const { Semaphore } = load('semaphore.js');
  const baseURL = `${upstream.url}/v1`;
  return new ChatClient({
    client: new OpenAI({ baseURL, apiKey: 'sk-bench', maxRetries: 0, fetch: upstreamFetch }),
    info: { id: 'bench', provider: 'openai-compatible', maxOutputTokens: 400 },
    upstreamModel: 'gpt-4o-mini',
    timeoutMs: 30_000,
    maxRetries: 0,
    semaphore: new Semaphore(streams * 2, 'bench'),
    relay: {
      url: `${baseURL}/chat/completions`,
      headers: { authorization: 'Bearer sk-bench', 'content-type': 'application/json' },
    },
  });
}

const MESSAGES = [{ role: 'user', content: 'Describe a trail shoe' }];
const body = (model, stream) =>
  JSON.stringify({ model, messages: MESSAGES, max_tokens: 100, ...(stream ? { stream } : {}) });

async function drain(answer) {
  for await (const _chunk of answer.body);
}

const SHAPES = {
  'sdk complete': (chat) => chat.complete(MESSAGES, 100),
  'relay complete': (chat) => chat.relay(body('gpt-4o-mini'), {}, (answer) => answer.body.text()),
  'relay stream': (chat) => chat.relay(body('gpt-4o-mini', true), {}, drain),
};

/** CPU (ms) per call of `calls` calls, `concurrency` at a time. */
async function cpuPerCall(chat, shape) {
  let next = 0;
  const worker = async () => {
    while (next++ < calls) await SHAPES[shape](chat);
  };
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  return {
    cpu: (used.user + used.system) / 1000 / calls,
    rps: calls / ((performance.now() - wall) / 1000),
  };
}

function busy(ms) {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** A stand-in gateway: each request costs `startMs` of CPU, then its stream is relayed. */
function relayServer(chat) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      busy(startMs);
      chat
        .relay(body('gpt-4o-mini-paced', true), {}, async (answer) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for await (const chunk of answer.body) res.write(chunk);
          res.end();
        })
        .catch(() => res.destroy());
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })),
  );
}

async function burst(relay, upstream) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: streams });
  const arrived = upstream.expect(streams);
  const startUs = Number(process.hrtime.bigint() / 1000n);
  const firsts = await Promise.all(
    Array.from(
      { length: streams },
      () =>
        new Promise((resolve) => {
          const req = http.request(
            { host: '127.0.0.1', port: relay.port, method: 'POST', path: '/', agent },
            (res) => {
              res.once('data', () => resolve(Number(process.hrtime.bigint() / 1000n) - startUs));
              res.resume();
              res.on('error', () => resolve(NaN));
            },
          );
          req.on('error', () => resolve(NaN));
          req.end('{}');
        }),
    ),
  );
  await arrived;
  const at = (await upstream.arrivals()).map((us) => (us - startUs) / 1000).sort((a, b) => a - b);
  agent.destroy();
  firsts.sort((a, b) => a - b);
  return {
    upstream: [at[0], percentile(at, 50), at.at(-1)],
    first: [percentile(firsts, 50) / 1000, percentile(firsts, 99) / 1000],
  };
}

const fmt = (values) => values.map((v) => v.toFixed(1)).join(' / ');

async function main() {
  const upstream = await startMockUpstream();
  const builds = [['this build', path.resolve(__dirname, '../..')]];
  if (args.before) builds.push(['before', path.resolve(args.before)]);
  const loaded = [];
  for (const [name, root] of builds) {
    const chat = clientOf(root, upstream);
    loaded.push({ name, chat, relay: await relayServer(chat) });
  }
  console.log(
    `upstream client on node ${process.version}, load ${require('node:os')
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ` +
      `${calls} calls at c=${concurrency}; bursts of ${streams} streams, ${startMs} ms of CPU per start`,
  );
  for (let round = 1; round <= Number(args.rounds); round++) {
    for (const { name, chat, relay } of loaded) {
      const line = [];
      for (const shape of Object.keys(SHAPES)) {
        const r = await cpuPerCall(chat, shape);
        line.push(`${shape} ${r.cpu.toFixed(3)} ms CPU/call (${Math.round(r.rps)}/s)`);
      }
      const b = await burst(relay, upstream);
      console.log(
        `round ${round} ${name.padEnd(10)} ${line.join(', ')}; burst: upstream arrivals ${fmt(b.upstream)} ms (first / p50 / last), first event p50 / p99 ${fmt(b.first)} ms`,
      );
    }
  }
  for (const { relay } of loaded) relay.server.close();
  await upstream.stop();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
