'use strict';
/**
 * A stand-in OpenTelemetry collector for `bench:gateway --tracing`: accepts OTLP/HTTP exports
 * (POST /v1/traces) and answers an empty ExportTraceServiceResponse at once, counting requests and
 * bytes, so the benchmark measures what tracing costs the services, not a collector's work.
 * Run as a child process (`fork`): it sends { port } when listening and { requests, bytes } on
 * the message "stats".
 */
const http = require('node:http');

let requests = 0;
let bytes = 0;

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  req.on('data', (part) => (bytes += part.length));
  req.on('end', () => {
    if (req.method === 'POST' && req.url === '/v1/traces') requests += 1;
    res.writeHead(req.method === 'POST' ? 200 : 404, {
      'content-type': 'application/x-protobuf',
      'content-length': 0,
    });
    res.end();
  });
});

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (message) => {
  if (message === 'stats') process.send({ requests, bytes });
});
process.on('disconnect', () => process.exit(0));
