#!/usr/bin/env node
'use strict';
/**
 * The floor under movielens.js's latency phases: a bare grpc-js server (its defaults) and a bare
 * node:http server, in their own process, that answer every call with a canned answer the mesh
 * gave (sent over IPC as {answers: {grpc, http}}). Same load clients, same machine, no work: what
 * any service pays here before doing anything. Sends {ready, grpcPort, httpUrl}; answers {reset} /
 * {stats} as phase-stats.js says.
 */
const http = require('node:http');
const { Server, ServerCredentials } = require('@grpc/grpc-js');
const { protos, turnOffAllocationSitePretenuring } = require('@switchyard/shared');
const { phaseStats } = require('./phase-stats');

turnOffAllocationSitePretenuring();

async function start({ grpc: grpcAnswer, http: httpAnswer }) {
  const grpcServer = new Server();
  grpcServer.addService(protos.recommendation().RecommendationService.service, { Recommend: (call, callback) => callback(null, grpcAnswer) });
  const grpcPort = await new Promise((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
  );
  const body = Buffer.from(httpAnswer);
  const httpServer = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body));
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return { grpcServer, grpcPort, httpServer };
}

const onPhaseMessage = phaseStats();
let servers;
process.on('message', async (message) => {
  if (await onPhaseMessage(message)) return;
  if (message.answers) {
    servers = await start(message.answers);
    process.send({ ready: true, grpcPort: servers.grpcPort, httpUrl: `http://127.0.0.1:${servers.httpServer.address().port}` });
  } else if (message.stop) {
    servers?.httpServer.close();
    servers?.grpcServer.forceShutdown();
    process.exit(0);
  }
});
