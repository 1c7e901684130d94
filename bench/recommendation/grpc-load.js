#!/usr/bin/env node
'use strict';
/**
 * gRPC load client for movielens.js, in its own process (like http-load.js): Recommend for the
 * users given on stdin (JSON {address, users, calls, inFlight, warmUp}), prints the sorted latencies (ms).
 */
const { callUnary, createClient, protos } = require('@switchyard/shared');
const { timed } = require('./timing');

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { address, users, calls, inFlight, warmUp } = JSON.parse(input);
  const client = createClient(protos.recommendation().RecommendationService, address);
  const context = (i) => ({ organization: 'dev', keyId: 'bench', requestId: `bench_${i}` });
  const request = (i) => ({ user_id: users[i % users.length], num_recommendations: 10 });
  // This client's channel and code paths warm up first, not measured.
  await timed(warmUp, inFlight, (i) =>
    callUnary('recommendation', client.Recommend, client, request(i), context(i), 5000),
  );
  const latencies = await timed(calls, inFlight, (i) =>
    callUnary('recommendation', client.Recommend, client, request(i), context(i), 5000),
  );
  client.close();
  process.stdout.write(JSON.stringify(latencies));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
