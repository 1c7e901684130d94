'use strict';
/**
 * The calls the gateway benchmark makes, each with the direct call it is compared with: the same
 * upstream request sent straight to the mock (model routes), or a bare HTTP round trip to the
 * mock (routes that call no model), so "added" is what Switchyard costs on top.
 */
const { randomUUID } = require('node:crypto');
const { API_KEY, MODEL, PACED_MODEL } = require('./targets');

const AUTH = { authorization: `X-API-Key ${API_KEY}`, 'content-type': 'application/json' };
/** How OpenAI's SDKs send the key. */
const BEARER = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const MESSAGES = [{ role: 'user', content: 'A launch post for our new trail shoes' }];
const CHAT_DIRECT = (stream) => ({
  method: 'POST',
  path: '/v1/chat/completions',
  headers: { authorization: 'Bearer sk-upstream-bench', 'content-type': 'application/json' },
  body: JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'A launch post for our new trail shoes' }],
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  }),
});
const BARE_DIRECT = { method: 'GET', path: '/health' };

/** An OpenAI chat completions call through the gateway; `floor` scenarios are also relayed by the bare floor relay. */
const V1_CHAT = (stream, model = MODEL) => ({
  method: 'POST',
  path: '/v1/chat/completions',
  headers: BEARER,
  body: JSON.stringify({
    model,
    messages: MESSAGES,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  }),
});

/** Asks the response cache for the call (docs/api.md, "Response cache"). */
const CACHED = { ...BEARER, 'cache-control': 'max-age=3600' };
/** Budgets no bench run reaches: every call still reserves and settles on each of them. */
const UNREACHED = { tokens: 1e12, cost: 1e9 };
/**
 * A key with every per-call control (scopes, a team, key and end-user budgets), by gateway URL:
 * seed() issues one on each gateway it seeds (a --before build has its own).
 */
const controlledKeys = new Map();

const SCENARIOS = [
  { name: 'v1 chat', floor: true, gateway: V1_CHAT(false), direct: CHAT_DIRECT(false) },
  // The plain call on a key with model and route scopes, a team and key and end-user budgets: what the controls cost.
  {
    name: 'v1 chat controls',
    gateway: (url) => ({
      ...V1_CHAT(false),
      headers: { ...BEARER, authorization: `Bearer ${controlledKeys.get(url)}` },
      body: JSON.stringify({ model: MODEL, messages: MESSAGES, user: 'bench-end-user' }),
    }),
    direct: CHAT_DIRECT(false),
  },
  // The same request each time: after the first, hits served with no upstream call.
  {
    name: 'v1 chat cache hit',
    gateway: { ...V1_CHAT(false), headers: CACHED },
    direct: CHAT_DIRECT(false),
  },
  // A new request each time: a miss, the model's answer stored (the lookup and the write's cost).
  {
    name: 'v1 chat cache miss',
    gateway: {
      ...V1_CHAT(false),
      headers: CACHED,
      setupBody: () =>
        JSON.stringify({
          model: MODEL,
          messages: [{ role: 'user', content: `${MESSAGES[0].content} ${randomUUID()}` }],
        }),
    },
    direct: CHAT_DIRECT(false),
  },
  {
    name: 'v1 stream cache hit',
    stream: true,
    gateway: { ...V1_CHAT(true), headers: CACHED },
    direct: CHAT_DIRECT(true),
  },
  {
    name: 'v1 chat stream',
    floor: true,
    stream: true,
    gateway: V1_CHAT(true),
    direct: CHAT_DIRECT(true),
  },
  {
    name: 'generate',
    gateway: {
      method: 'POST',
      path: '/api/v2/ai/content/generate',
      headers: AUTH,
      body: JSON.stringify({
        model: MODEL,
        prompt: 'A launch post for our new trail shoes',
        tone: 'playful',
        max_length: 200,
      }),
    },
    direct: CHAT_DIRECT(false),
  },
  {
    name: 'generate stream',
    stream: true,
    gateway: {
      method: 'POST',
      path: '/api/v2/ai/content/generate',
      headers: AUTH,
      body: JSON.stringify({
        model: MODEL,
        prompt: 'A launch post for our new trail shoes',
        stream: true,
      }),
    },
    direct: CHAT_DIRECT(true),
  },
  {
    name: 'transform',
    gateway: {
      method: 'POST',
      path: '/api/v2/ai/content/transform',
      headers: AUTH,
      body: JSON.stringify({
        model: MODEL,
        action: 'summarize',
        text: 'Our trail shoes grip wet rock, drain fast and weigh 280 g. '.repeat(8),
        target_length: 'short',
      }),
    },
    direct: CHAT_DIRECT(false),
  },
  {
    name: 'assistant chat',
    gateway: {
      method: 'POST',
      path: '/api/v2/ai/assistants/chat',
      headers: AUTH,
      // A new session per call: history does not grow across the run.
      setupBody: () =>
        JSON.stringify({
          user_id: 'u-bench',
          session_id: `s-${randomUUID()}`,
          model: MODEL,
          messages: [{ role: 'user', content: 'Which shoes suit muddy trails?' }],
        }),
    },
    direct: CHAT_DIRECT(false),
  },
  {
    name: 'recommendations',
    gateway: {
      method: 'POST',
      path: '/api/v2/ai/recommendations',
      headers: AUTH,
      body: JSON.stringify({ userId: 'u-3', numRecommendations: 10 }),
    },
    direct: BARE_DIRECT,
  },
  {
    name: 'models',
    gateway: {
      method: 'GET',
      path: '/api/v2/models',
      headers: { authorization: AUTH.authorization },
    },
    direct: BARE_DIRECT,
  },
];

/** A small catalog and some interactions, so recommendations rank real items. */
async function seed(url) {
  const items = Array.from({ length: 200 }, (_, i) => ({
    itemId: `item-${i}`,
    catalog: 'ecommerce',
    title: `Trail shoe ${i}`,
    categories: [`cat-${i % 7}`],
    attributes: { price: 50 + (i % 40) },
  }));
  const interactions = [];
  for (let user = 0; user < 100; user += 1) {
    for (let k = 0; k < 12; k += 1)
      interactions.push({
        userId: `u-${user}`,
        itemId: `item-${(user * 7 + k * 13) % 200}`,
        type: k % 3 === 0 ? 'purchase' : 'view',
      });
  }
  const post = async (path, body) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: AUTH,
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`seeding ${path}: ${response.status} ${await response.text()}`);
    const text = await response.text();
    return text ? JSON.parse(text) : undefined;
  };
  const { teamId } = await post('/api/v2/teams', {
    name: `bench-${randomUUID().slice(0, 8)}`,
    budget: { ...UNREACHED, period: 'month' },
  });
  const { key } = await post('/api/v2/keys', {
    name: 'bench controls',
    models: [MODEL],
    routes: ['/v1/*'],
    teamId,
    budget: { ...UNREACHED, period: 'day' },
    endUserBudget: { ...UNREACHED, period: 'day' },
  });
  controlledKeys.set(url, key);
  for (const [path, body] of [
    ['/api/v2/catalog/items', { items }],
    ['/api/v2/interactions', { interactions: interactions.slice(0, 1000) }],
    ['/api/v2/interactions', { interactions: interactions.slice(1000) }],
  ])
    await post(path, body);
}

/**
 * The realistic shape: many streams at once against the paced upstream model (about 1.2 s a call),
 * through /v1/chat/completions, through the native generate stream, and through the floor relay.
 */
const PACED = {
  direct: {
    ...CHAT_DIRECT(true),
    body: JSON.stringify({
      model: 'gpt-4o-mini-paced',
      messages: MESSAGES,
      stream: true,
      stream_options: { include_usage: true },
    }),
  },
  routes: [
    { name: 'v1 chat stream', request: V1_CHAT(true, PACED_MODEL) },
    {
      name: 'generate stream',
      request: {
        method: 'POST',
        path: '/api/v2/ai/content/generate',
        headers: AUTH,
        body: JSON.stringify({ model: PACED_MODEL, prompt: MESSAGES[0].content, stream: true }),
      },
    },
  ],
};

module.exports = { SCENARIOS, PACED, AUTH, seed };
