'use strict';
/**
 * A minimal OpenAI-compatible upstream for the gateway benchmark: POST /v1/chat/completions answers
 * JSON or (stream: true) Server-Sent Events ending with a usage chunk, with no work of its own, so
 * what the benchmark measures is what Switchyard adds. A model whose name ends in "-paced" streams
 * like a real model: the first chunk after PACE.firstMs, then PACE.chunks chunks PACE.everyMs
 * apart (about 1.2 s a call). GET /health is the bare-HTTP baseline.
 * Run as a child process (`fork`): it sends { port } when listening. For a burst of paced streams
 * it notes when each paced request arrives: sent { expect: n }, it sends { arrived: n } once the
 * n-th has, and { arrivals } (hrtime in us) when sent 'arrivals'.
 */
const http = require('node:http');

const CONTENT = 'Trail shoes built for mud, rock and the long way home.';
const USAGE = { prompt_tokens: 24, completion_tokens: 12, total_tokens: 36 };
const PACE = { firstMs: 200, chunks: 40, everyMs: 25 };
const PACED_USAGE = {
  prompt_tokens: 24,
  completion_tokens: PACE.chunks,
  total_tokens: 24 + PACE.chunks,
};

function completion(model) {
  return JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content: CONTENT }, finish_reason: 'stop' },
    ],
    usage: USAGE,
  });
}

function chunk(model, choices, usage) {
  return `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices, ...(usage ? { usage } : {}) })}\n\n`;
}

function stream(res, model) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const word of CONTENT.split(/(?<= )/))
    res.write(chunk(model, [{ index: 0, delta: { content: word }, finish_reason: null }]));
  res.write(chunk(model, [{ index: 0, delta: {}, finish_reason: 'stop' }]));
  res.write(chunk(model, [], USAGE));
  res.end('data: [DONE]\n\n');
}

/** A paced stream: PACE.chunks one-word chunks, the first after PACE.firstMs; stops if the client leaves. */
function pacedStream(res, model) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sent = 0;
  let timer = setTimeout(function next() {
    if (res.destroyed) return;
    res.write(chunk(model, [{ index: 0, delta: { content: 'word ' }, finish_reason: null }]));
    sent += 1;
    if (sent < PACE.chunks) {
      timer = setTimeout(next, PACE.everyMs);
      return;
    }
    res.write(chunk(model, [{ index: 0, delta: {}, finish_reason: 'stop' }]));
    res.write(chunk(model, [], PACED_USAGE));
    res.end('data: [DONE]\n\n');
  }, PACE.firstMs);
  res.on('close', () => clearTimeout(timer));
}

const burst = { expect: 0, arrivals: [] };

function arrived() {
  burst.arrivals.push(Number(process.hrtime.bigint() / 1000n));
  if (process.send && burst.arrivals.length === burst.expect)
    process.send({ arrived: burst.expect });
}

function handle(req, res) {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
    return;
  }
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString() || '{}');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (body.stream && String(body.model).endsWith('-paced')) {
      arrived();
      return pacedStream(res, body.model);
    }
    if (body.stream) return stream(res, body.model);
    const payload = completion(body.model);
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
    });
    res.end(payload);
  });
}

function start(port = 0) {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handle);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

module.exports = { start, CONTENT, USAGE, PACE };

if (require.main === module) {
  start(Number(process.env.PORT ?? 0)).then((server) => {
    const { port } = server.address();
    if (!process.send) {
      process.stdout.write(`mock upstream on http://127.0.0.1:${port}\n`);
      return;
    }
    process.send({ port });
    process.on('message', (message) => {
      if (message === 'arrivals') process.send({ arrivals: burst.arrivals.splice(0) });
      else if (message?.expect) Object.assign(burst, { expect: message.expect, arrivals: [] });
    });
  });
}
