'use strict';
/**
 * The stack bench's callback receiver on 127.0.0.1: answers 200 at once and records every
 * arrival by what it is about (the requestId of a result callback sent to /result, the event id
 * of a webhook), so lost and duplicated deliveries can be counted afterwards.
 */
const http = require('node:http');

function startCallbackReceiver() {
  /** key -> arrival times (ms, performance.now()) */
  const arrivals = { results: new Map(), events: new Map() };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        // Result callbacks (webhookUrl) are POSTed to /result and carry the requestId; webhooks carry an id.
        const [kind, key] = req.url.startsWith('/result')
          ? ['results', body.requestId]
          : ['events', body.id];
        const seen = arrivals[kind].get(key) ?? [];
        seen.push(at);
        arrivals[kind].set(key, seen);
      } catch {
        // not a webhook body: ignored
      }
      res.writeHead(200).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        arrivals,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

module.exports = { startCallbackReceiver };
