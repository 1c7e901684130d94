'use strict';
/**
 * The floor of the gateway benchmark: a bare node:http server relaying every request to the mock
 * upstream through undici (one keep-alive pool) and piping the answer back, with no
 * authentication, accounting or parsing. What a gateway adds above this is the price of what it
 * does. Run as a child process (`fork`): UPSTREAM_URL in the environment; it sends { port } when
 * listening.
 */
const http = require('node:http');
const { Agent, request } = require('undici');

const upstream = process.env.UPSTREAM_URL;
const pool = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  request(`${upstream}${req.url}`, {
    method: req.method,
    headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
    body: req.method === 'GET' ? undefined : req,
    dispatcher: pool,
  }).then(
    (answer) => {
      const type = answer.headers['content-type'];
      res.writeHead(answer.statusCode, type ? { 'content-type': type } : {});
      answer.body.pipe(res);
    },
    () => {
      res.writeHead(502).end();
    },
  );
});

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
