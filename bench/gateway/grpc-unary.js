#!/usr/bin/env node
/**
 * What one unary gRPC call costs between two processes over loopback TCP, as the stack's gateway
 * calls content (build first: `npm run build`): a child process serves ContentService through
 * startGrpcServer (handlers answering a fixed Generate response), this process calls it through
 * createRpcClient (the services' channel options and interceptors) with a call context in
 * metadata, `--connections` calls at a time. Prints CPU per call in the client and in the server
 * (Linux /proc for the child) and calls per second. Figures only.
 *
 *   node bench/gateway/grpc-unary.js [--calls 10000] [--connections 8]
 */
'use strict';
const path = require('node:path');
const { fork } = require('node:child_process');
const { parseArgs } = require('node:util');
const { cpuMs } = require('./measure');

const ROOT = path.resolve(__dirname, '../..');
const shared = require(path.join(ROOT, 'shared/dist/src/index.js'));
const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '8' },
    serve: { type: 'boolean', default: false },
  },
});

const RESPONSE = {
  content: 'A tagline of about two hundred characters. '.repeat(5),
  usage: { model: 'bench-gpt', tokens_input: 12, tokens_output: 40, cost: 0.0001 },
  request_id: 'req_0123456789abcdef',
};

async function serve() {
  const service = shared.protos.content().ContentService;
  const handlers = Object.fromEntries(
    Object.entries(service.service).map(([name, spec]) => [
      spec.originalName ?? name.charAt(0).toLowerCase() + name.slice(1),
      async () => RESPONSE,
    ]),
  );
  const logger = require(require.resolve('pino', { paths: [path.join(ROOT, 'shared')] }))({
    level: 'silent',
  });
  const server = await shared.startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [
      { name: shared.SERVICE_NAMES.ContentService, definition: service.service, handlers },
    ],
    logger,
  });
  process.send(server.port);
}

async function call() {
  const server = fork(__filename, ['--serve']);
  const port = await new Promise((resolve) => server.once('message', resolve));
  const content = shared.createRpcClient(
    shared.protos.content().ContentService,
    `127.0.0.1:${port}`,
    5000,
  );
  const context = {
    organization: 'org_bench',
    keyId: 'key_bench',
    requestId: 'req_0123456789abcdef',
  };
  const request = {
    prompt: 'Write a tagline for a coffee shop that opens at dawn.',
    model: 'bench-gpt',
    max_length: 64,
    tone: '',
    language: '',
  };
  const run = async (calls) => {
    let started = 0;
    await Promise.all(
      Array.from({ length: Number(args.connections) }, async () => {
        while (started++ < calls) await content.generate(request, context);
      }),
    );
  };
  await run(2000); // warm-up: connection, JIT
  const calls = Number(args.calls);
  const clientBefore = process.cpuUsage();
  const serverBefore = cpuMs({ server: server.pid }).server;
  const startedAt = Date.now();
  await run(calls);
  const seconds = (Date.now() - startedAt) / 1000;
  const client = process.cpuUsage(clientBefore);
  const serverMs = cpuMs({ server: server.pid }).server - serverBefore;
  console.log(
    `grpc unary on node ${process.version}, load ${require('node:os')
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}: ${calls} calls, ${args.connections} at a time, ` +
      `${(calls / seconds).toFixed(0)} calls/s; CPU per call: client ` +
      `${((client.user + client.system) / 1000 / calls).toFixed(3)} ms, server ` +
      `${(serverMs / calls).toFixed(3)} ms`,
  );
  content.close();
  server.kill();
}

(args.serve ? serve() : call()).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
