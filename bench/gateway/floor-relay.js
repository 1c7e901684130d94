'use strict';
/**
 * The floor of the gateway benchmark: a bare node:http server relaying every request to the mock
 * upstream through node:http (one keep-alive Agent, as content's client) and piping the answer back, with no
 * authentication, accounting or parsing. What a gateway adds above this is the price of what it
 * does. Run as a child process (`fork`): UPSTREAM_URL in the environment; it sends { port } when
 * listening.
 */
const http = require('node:http');

const upstream = process.env.UPSTREAM_URL;
const agent = new http.Agent({ keepAlive: true, timeout: 30_000 });

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const forward = http.request(
    `${upstream}${req.url}`,
    {
      method: req.method,
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
      agent,
    },
    (answer) => {
      const type = answer.headers['content-type'];
      res.writeHead(answer.statusCode, type ? { 'content-type': type } : {});
      answer.pipe(res);
    },
  );
  forward.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(forward);
});

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
