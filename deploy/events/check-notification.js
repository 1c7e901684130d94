#!/usr/bin/env node
/**
 * End-to-end check of the event contract: starts the notification service process against Kafka
 * (and Mongo when MONGODB_URI is set), registers an invoice_paid webhook to a local receiver,
 * publishes an invoice.paid with produce-example.js and waits for the signed POST.
 *
 *   eval "$(bash deploy/local/infra.sh env)"; node deploy/events/check-notification.js
 * Needs `npx tsc -b services/notification` first. Prints what the receiver got; exit 1 on failure.
 */
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');
const ROOT = path.resolve(__dirname, '../..');
const shared = require(path.join(ROOT, 'shared/dist/src/index.js'));
const { verifyWebhook } = require(path.join(ROOT, 'services/notification/dist/src/server.js'));

const GRPC_PORT = Number(process.env.CHECK_GRPC_PORT ?? 50154);
const METRICS_PORT = Number(process.env.CHECK_METRICS_PORT ?? 19464);
const ORGANIZATION = `org_check_${Date.now().toString(36)}`;
const DATABASE = `switchyard_notification_check_${Date.now().toString(36)}`;

function startReceiver(onCall) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      onCall({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function startService() {
  const env = {
    ...process.env,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(GRPC_PORT),
    METRICS_PORT: String(METRICS_PORT),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_REQUIRE_HTTPS: 'false',
    MONGODB_DATABASE: DATABASE,
    SECRETS_ENCRYPTION_KEY:
      process.env.SECRETS_ENCRYPTION_KEY ??
      require('node:crypto').randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
  };
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'services/notification/dist/src/index.js')],
    { env, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return child;
}

async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function scrape() {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: METRICS_PORT, path: '/metrics' }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

async function main() {
  if (!process.env.KAFKA_BROKERS)
    throw new Error('set KAFKA_BROKERS (eval "$(bash deploy/local/infra.sh env)")');
  const calls = [];
  const receiver = await startReceiver((call) => calls.push(call));
  const child = startService();
  const address = `127.0.0.1:${GRPC_PORT}`;
  try {
    const exitedEarly = new Promise((_, reject) =>
      child.once('exit', (code) => reject(new Error(`the service exited (code ${code})`))),
    );
    exitedEarly.catch(() => undefined);
    await Promise.race([
      until(
        async () => (await shared.checkHealth(address)) === 'SERVING',
        30_000,
        'the service to be SERVING',
      ),
      exitedEarly,
    ]);
    const client = shared.createClient(shared.protos.notification().NotificationService, address);
    const context = {
      organization: ORGANIZATION,
      keyId: 'key_check',
      requestId: shared.newId('req'),
    };
    const url = `http://127.0.0.1:${receiver.address().port}/hooks/billing`;
    const registered = await shared.callUnary(
      'notification',
      client.RegisterWebhook,
      client,
      { events: ['invoice_paid'], url },
      context,
      5000,
    );
    console.log(`registered ${registered.webhook.id} for ${ORGANIZATION} -> ${url}`);
    const produced = execFileSync(
      process.execPath,
      [path.join(__dirname, 'produce-example.js'), 'invoice.paid', ORGANIZATION],
      { env: process.env },
    ).toString();
    console.log(`produced:\n${produced}`);
    const call = await until(
      async () => calls[0],
      60_000,
      'the webhook POST (consumer group join can take a few seconds)',
    );
    const body = JSON.parse(call.body.toString());
    const verified = verifyWebhook(registered.secret, call.headers, call.body);
    console.log(
      `receiver got (signature ${verified ? 'verified' : 'NOT VERIFIED'}):\n${JSON.stringify({ 'webhook-id': call.headers['webhook-id'], body }, null, 2)}`,
    );
    const metrics = await scrape();
    console.log(
      metrics
        .split('\n')
        .filter((l) =>
          /^notification_(pending_deliveries|webhook_attempts_total|event_to_first_attempt_seconds_count)/.test(
            l,
          ),
        )
        .join('\n'),
    );
    client.close();
    if (!verified || body.event !== 'invoice_paid' || body.organization !== ORGANIZATION)
      throw new Error('unexpected webhook');
    console.log('OK');
  } finally {
    // The child may have exited already (e.g. a port in use): then there is no exit event to wait for.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    receiver.close();
    if (process.env.MONGODB_URI) {
      const connection = await shared.connectMongo(
        process.env.MONGODB_URI,
        DATABASE,
        require('pino')({ level: 'silent' }),
      );
      await connection.db.dropDatabase();
      await connection.close();
    }
  }
}

main().catch((error) => {
  console.error(`check failed: ${error.message}`);
  process.exit(1);
});
