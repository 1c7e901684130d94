'use strict';
/**
 * The mixed load at a fixed rate (open loop: calls start on schedule whether or not earlier ones
 * have answered): sync generate, async generate with a webhookUrl, transform and assistant chat
 * (all billable), plus interaction uploads (data events, not billable). Every answer is recorded
 * with its time, status and request id.
 */
const { randomUUID } = require('node:crypto');
const { AUTH } = require('../gateway/scenarios');
const { MODEL } = require('../gateway/targets');

const PROMPT = 'A launch post for our new trail shoes';

/** Billable kinds by share of the billable rate; data uploads come on top at dataShare of it. */
const MIX = [
  {
    kind: 'generate',
    share: 0.5,
    request: () => ({
      path: '/api/v2/ai/content/generate',
      body: { model: MODEL, prompt: PROMPT, max_length: 100 },
    }),
  },
  {
    kind: 'async',
    share: 0.2,
    request: (callbackUrl) => ({
      path: '/api/v2/ai/content/generate',
      body: { model: MODEL, prompt: PROMPT, max_length: 100, webhookUrl: `${callbackUrl}/result` },
    }),
  },
  {
    kind: 'transform',
    share: 0.15,
    request: () => ({
      path: '/api/v2/ai/content/transform',
      body: {
        model: MODEL,
        action: 'summarize',
        text: 'Our trail shoes grip wet rock, drain fast and weigh 280 g. '.repeat(4),
        target_length: 'short',
      },
    }),
  },
  {
    kind: 'chat',
    share: 0.15,
    request: () => ({
      path: '/api/v2/ai/assistants/chat',
      body: {
        user_id: 'u-bench',
        session_id: `s-${randomUUID()}`,
        model: MODEL,
        messages: [{ role: 'user', content: 'Which shoes suit muddy trails?' }],
      },
    }),
  },
];
const DATA = {
  kind: 'data',
  request: (n) => ({
    path: '/api/v2/interactions',
    body: { interactions: [{ userId: `u-${n % 50}`, itemId: `item-${n % 200}`, type: 'view' }] },
  }),
};

/** Picks kinds in proportion to their shares, deterministically (a running deficit per kind). */
function scheduler() {
  const credit = new Map(MIX.map((m) => [m.kind, 0]));
  return () => {
    for (const m of MIX) credit.set(m.kind, credit.get(m.kind) + m.share);
    const next = MIX.reduce((best, m) => (credit.get(m.kind) > credit.get(best.kind) ? m : best));
    credit.set(next.kind, credit.get(next.kind) - 1);
    return next;
  };
}

async function call(url, { path, body }, timeoutMs = 15_000) {
  const t0 = performance.now();
  try {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: AUTH,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return {
      t0,
      t1: performance.now(),
      status: response.status,
      requestId: response.headers.get('x-request-id') ?? undefined,
    };
  } catch (error) {
    return {
      t0,
      t1: performance.now(),
      status: 0,
      error: error.name === 'TimeoutError' ? 'timeout' : 'network',
    };
  }
}

/**
 * Runs the load for durationS at ratePerS billable calls (and dataShare x that of data uploads);
 * onTick(elapsedS) runs each second (faults, samples). Returns every answer once all are in.
 */
async function runLoad({
  url,
  callbackUrl,
  ratePerS,
  durationS,
  dataShare = 0.1,
  onTick = () => undefined,
}) {
  const answers = [];
  const pending = new Set();
  const next = scheduler();
  const start = performance.now();
  const tickMs = 50;
  let billable = 0;
  let data = 0;
  let second = 0;
  while (performance.now() - start < durationS * 1000) {
    const elapsedS = (performance.now() - start) / 1000;
    while (billable < elapsedS * ratePerS) {
      const m = next();
      billable++;
      const p = call(url, m.request(callbackUrl)).then((a) => answers.push({ kind: m.kind, ...a }));
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    while (data < elapsedS * ratePerS * dataShare) {
      const p = call(url, DATA.request(data++)).then((a) =>
        answers.push({ kind: DATA.kind, ...a }),
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    if (elapsedS >= second) void onTick(second++);
    await new Promise((resolve) => setTimeout(resolve, tickMs));
  }
  await Promise.all(pending);
  return { answers, startedAt: start };
}

module.exports = { runLoad, MIX };
