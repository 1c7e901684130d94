import * as http from 'node:http';
import { createEvent, startMetricsServer, type RunningMetricsServer } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import type { RegisterWebhookResponse__Output } from '@switchyard/shared/proto/notification/v1';
import { SERVED_REGISTRIES } from '../src/metrics';
import { metricsText } from '../src/server';
import { expect } from './chai';
import { Receiver, startTestService, until, type TestService } from './helpers';

function get(port: number, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
        );
      })
      .on('error', reject);
  });
}

function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('metrics endpoint', () => {
  let svc: TestService;
  let receiver: Receiver;
  let metrics: RunningMetricsServer;

  before(async () => {
    receiver = await new Receiver().start();
    receiver.responder = () => ({ status: 500 });
    // A long second delay keeps the delivery pending after its first attempt.
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0,1h' });
    // What runServiceProcess serves on METRICS_PORT for this service.
    metrics = await startMetricsServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      registries: SERVED_REGISTRIES,
    });
  });

  after(async () => {
    await metrics.stop();
    await svc.stop();
    await receiver.close();
  });

  it('serves Prometheus text with the pending-delivery gauge read from the store', async () => {
    await svc.call<RegisterWebhookResponse__Output>('RegisterWebhook', {
      events: ['data_updated'],
      url: receiver.url(),
    });
    await svc.bus.publish(
      createEvent('data.updated', {
        source: 'test',
        organization: 'org_a',
        data: { dataset: 'd', count: 1 },
      }),
    );
    await until(
      async () =>
        (await svc.service.stores.deliveries.list('org_a', { limit: 1 }))[0]?.attempts.length === 1,
    );
    const response = await get(metrics.port, '/metrics');
    expect(response.status).to.equal(200);
    expect(response.type).to.match(/^text\/plain/);
    expect(sample(response.body, 'notification_pending_deliveries')).to.equal(
      await svc.service.stores.dueQueue.size(),
    );
    expect(sample(response.body, 'notification_pending_deliveries')).to.equal(1);
    expect(
      sample(response.body, 'notification_event_to_first_attempt_seconds_count'),
    ).to.be.at.least(1);
    expect(response.body).to.include('notification_webhook_attempts_total{outcome="failed"}');
    // gRPC server metrics recorded by the shared adapters.
    expect(response.body).to.include(
      'grpc_server_handled_total{grpc_service="switchyard.notification.v1.NotificationService",grpc_method="RegisterWebhook",grpc_code="OK"}',
    );
    // prom-client default process metrics.
    expect(response.body).to.match(/^process_cpu_user_seconds_total /m);
    expect(response.body).to.match(/^nodejs_eventloop_lag_seconds /m);
  });

  it('answers 404 elsewhere, and metricsText() gives the same exposition for an embedded mesh', async () => {
    expect((await get(metrics.port, '/')).status).to.equal(404);
    const { body, contentType } = await metricsText();
    expect(contentType).to.match(/^text\/plain/);
    expect(body).to.include('# TYPE notification_event_to_first_attempt_seconds histogram');
  });
});
