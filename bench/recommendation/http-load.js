#!/usr/bin/env node
'use strict';
/**
 * Load client for movielens.js, run as its own process so the client's work does not share the
 * gateway's event loop: POSTs /api/v2/ai/recommendations for the users given on stdin (JSON
 * {url, apiKey, users, calls, inFlight}), keep-alive, and prints the sorted latencies (ms) as JSON.
 */
const http = require('node:http');
const { timed } = require('./timing');

function post(agent, url, apiKey, body) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const request = http.request(
      `${url}/api/v2/ai/recommendations`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `X-API-Key ${apiKey}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200
            ? resolve()
            : reject(new Error(`status ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { url, apiKey, users, calls, inFlight, warmUp } = JSON.parse(input);
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const call = (i) =>
    post(agent, url, apiKey, { userId: users[i % users.length], numRecommendations: 10 });
  await timed(warmUp, inFlight, call); // this client's connections and code paths, not measured
  const latencies = await timed(calls, inFlight, call);
  agent.destroy();
  process.stdout.write(JSON.stringify(latencies));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
