import { expect } from 'chai';
import { waitFor } from '@switchyard/shared/testing';
import type { ApiResponse } from '../support/http';
import { startStack, type RunningStack } from '../support/stack';
import { PrivateInfra } from './private-infra';

/**
 * Issue 37, what a fault run found: through a Kafka restart /readyz stayed "ready" with Kafka
 * "up" while ingests (the recommendation service's publishes) answered 503, and 503s during a
 * service's restart carried no Retry-After while those of an outage did. Here, on a Kafka of
 * this run's own: an ingest refused for Kafka is matched by a readiness that names who sees
 * Kafka down, and every 503 (Kafka away, a service killed) carries the same Retry-After.
 */
describe('chaos: Kafka stopped and a service killed: readiness names them, one Retry-After rule', function () {
  this.timeout(300_000);
  const infra = new PrivateInfra();
  let run: RunningStack;
  let n = 0;

  before(async () => {
    Object.assign(process.env, await infra.start());
    run = await startStack({ LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'info' });
  });

  after(async () => {
    await run?.stack.stopAll();
    await infra.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && run)
      process.stderr.write(`${run.log.slice(-40).join('\n')}\n`);
  });

  const readiness = async () => (await run.api('/readyz', { key: null })).body;
  const ingest = (): Promise<ApiResponse> =>
    run.api('/api/v2/interactions', {
      body: { interactions: [{ userId: `u${n++ % 7}`, itemId: 'tent', type: 'view' }] },
      timeoutMs: 30_000,
    });

  it('ingests and reads ready with Kafka up', async () => {
    expect((await ingest()).status).to.equal(200);
    const ready = await readiness();
    expect(ready.status).to.equal('ready');
    expect(ready.dependencies.kafka).to.equal('up');
  });

  it('Kafka stopped: an ingest answers 503 with Retry-After 1 and /readyz names the recommendation service seeing Kafka down', async () => {
    await infra.stopServer('kafka');
    let refused: ApiResponse | undefined;
    const others: string[] = [];
    await waitFor(async () => {
      const reply = await ingest();
      if (reply.status === 503) refused = reply;
      else if (reply.status !== 200) others.push(`${reply.status} ${reply.text}`);
      return refused !== undefined;
    }, 60_000);
    expect(others, 'answers other than 200 and 503').to.deep.equal([]);
    expect(refused!.body.error.code).to.equal('unavailable');
    expect(refused!.headers.get('retry-after')).to.equal('1');
    const ready = await readiness();
    expect(ready.status, JSON.stringify(ready)).to.equal('degraded');
    expect(ready.dependencies.kafka).to.equal('down');
    expect(ready.dependenciesDown.recommendation).to.include('kafka');
  });

  it('Kafka started again: ingests are served and /readyz reads ready, Kafka up', async () => {
    await infra.startServer('kafka');
    await waitFor(async () => (await ingest()).status === 200, 120_000);
    let ready = await readiness();
    await waitFor(async () => (ready = await readiness()).status === 'ready', 60_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}: /readyz ${JSON.stringify(ready)}`);
      },
    );
    expect(ready.dependencies.kafka).to.equal('up');
    expect(ready).not.to.have.property('dependenciesDown');
  });

  it('the recommendation service killed: its routes answer 503 with the same Retry-After, /readyz degraded naming it', async () => {
    await run.stack.stop('recommendation', 'SIGKILL');
    const reply = await ingest();
    expect(reply.status, reply.text).to.equal(503);
    expect(reply.body.error.code).to.equal('unavailable');
    expect(reply.headers.get('retry-after')).to.equal('1');
    const ready = await readiness();
    expect(ready.status).to.equal('degraded');
    expect(ready.services.recommendation).not.to.equal('SERVING');
    await run.stack.start('recommendation');
    await waitFor(async () => (await ingest()).status === 200, 60_000);
  });
});
