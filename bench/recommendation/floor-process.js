#!/usr/bin/env node
'use strict';
/**
 * The floor under movielens.js's latency phases: a bare grpc-js server, a bare node:http server,
 * and a node:http server that makes one call to that grpc-js server per request (the gateway's
 * shape), in their own process, answering every call with a canned answer the mesh gave (sent over
 * IPC as {answers: {grpc, http}}). Same load clients, same machine, no work: what any service pays
 * here before doing anything. grpc-js's channelz is off, as in every service process. Sends
 * {ready, grpcPort, httpUrl, relayUrl}; answers {reset} / {stats} as phase-stats.js says.
 */
const http = require('node:http');
const { Server, ServerCredentials, credentials } = require('@grpc/grpc-js');
const shared = require('@switchyard/shared');
const { phaseStats } = require('./phase-stats');

const { protos } = shared;
const grpcOptions = { 'grpc.enable_channelz': 0 };

async function start({ grpc: grpcAnswer, http: httpAnswer }) {
  const grpcServer = new Server(grpcOptions);
  grpcServer.addService(protos.recommendation().RecommendationService.service, {
    Recommend: (call, callback) => callback(null, grpcAnswer),
  });
  const grpcPort = await new Promise((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
  const body = Buffer.from(httpAnswer);
  const httpServer = await listen((request, response) => {
    request.resume();
    request.on('end', () =>
      response
        .writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
        .end(body),
    );
  });
  // The gateway's shape with no work: HTTP in, one gRPC call to a server in the same process, the
  // HTTP answer out.
  const Client = protos.recommendation().RecommendationService;
  const grpcClient = new Client(`127.0.0.1:${grpcPort}`, credentials.createInsecure(), grpcOptions);
  const relayServer = await listen((request, response) => {
    request.resume();
    request.on('end', () =>
      grpcClient.Recommend({ user_id: 'floor', num_recommendations: 10 }, (error) => {
        if (error) return response.writeHead(502).end();
        response
          .writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
          .end(body);
      }),
    );
  });
  return { grpcServer, grpcPort, grpcClient, httpServer, relayServer };
}

async function listen(handler) {
  const server = http.createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const urlOf = (server) => `http://127.0.0.1:${server.address().port}`;

const onPhaseMessage = phaseStats();
let servers;
process.on('message', async (message) => {
  if (await onPhaseMessage(message)) return;
  if (message.answers) {
    servers = await start(message.answers);
    process.send({
      ready: true,
      grpcPort: servers.grpcPort,
      httpUrl: urlOf(servers.httpServer),
      relayUrl: urlOf(servers.relayServer),
    });
  } else if (message.stop) {
    servers?.httpServer.close();
    servers?.relayServer.close();
    servers?.grpcClient.close();
    servers?.grpcServer.forceShutdown();
    process.exit(0);
  }
});
