import { connectMongo, createEvent } from '@switchyard/shared';
import { endpointOf, silentLogger, uniqueName } from '@switchyard/shared/testing';
import type {
  ListDeliveriesResponse__Output,
  RegisterWebhookResponse__Output,
} from '@switchyard/shared/proto/notification/v1';
import { expect } from './chai';
import { Receiver, startTestService, until, verifyWithLibrary, type TestService } from './helpers';
import { TEST_ENCRYPTION_KEY } from './store-fixtures';

for (const queue of ['in the process', 'in Redis'])
  describe(`restart with Mongo stores, due queue ${queue}: a pending retry survives the process`, function () {
    let receiver: Receiver;
    let env: NodeJS.ProcessEnv;
    const services: TestService[] = [];

    before(function () {
      if (!endpointOf('mongo') || (queue === 'in Redis' && !endpointOf('redis'))) this.skip();
    });

    beforeEach(async () => {
      receiver = await new Receiver().start();
      env = {
        MONGODB_URI: endpointOf('mongo'),
        MONGODB_DATABASE: uniqueName('notification_restart'),
        SECRETS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY.toString('base64'),
        WEBHOOK_RETRY_SCHEDULE: '0,300ms,300ms',
        WEBHOOK_SWEEP_INTERVAL_MS: '50',
        // The queue's keys are named after the database, so this test's queue is its own.
        REDIS_URL: queue === 'in Redis' ? endpointOf('redis') : '',
      };
    });

    afterEach(async () => {
      for (const svc of services.splice(0)) await svc.stop().catch(() => undefined);
      await receiver.close();
      const connection = await connectMongo(
        env.MONGODB_URI!,
        env.MONGODB_DATABASE!,
        silentLogger(),
      );
      await connection.db.dropDatabase();
      await connection.close();
    });

    it('resumes the delivery in a new service instance with the same webhook-id and attempt log', async () => {
      receiver.responder = (_call, index) =>
        index < 2 ? { status: 500, body: `down ${index}` } : { status: 200, body: 'ok' };
      const first = await startTestService(env);
      services.push(first);
      const { webhook, secret } = await first.call<RegisterWebhookResponse__Output>(
        'RegisterWebhook',
        { events: ['invoice_paid'], url: receiver.url() },
      );
      await first.bus.publish(
        createEvent('invoice.paid', {
          source: 'billing',
          organization: 'org_a',
          data: { invoiceId: 'inv_1', amount: 10, currency: 'EUR' },
        }),
      );
      const pending = await until(async () => {
        const [delivery] = await first.service.stores.deliveries.list('org_a', { limit: 1 });
        return delivery?.attempts.length === 1 ? delivery : undefined;
      });
      await first.stop();
      services.splice(0);
      expect(pending.status).to.equal('pending');
      expect(receiver.calls).to.have.length(1);

      const second = await startTestService(env);
      services.push(second);
      const list = await until(async () => {
        const response = await second.call<ListDeliveriesResponse__Output>('ListDeliveries', {
          webhook_id: webhook!.id,
        });
        return response.deliveries?.[0]?.status === 'succeeded' ? response.deliveries : undefined;
      }, 10_000);
      expect(list).to.have.length(1);
      expect(list[0]!.id).to.equal(pending.id);
      expect(list[0]!.attempts!.map((a) => a.status_code)).to.deep.equal([500, 500, 200]);
      expect(list[0]!.attempts![0]!.response_body).to.equal('down 0');
      expect(receiver.calls).to.have.length(3);
      expect(new Set(receiver.calls.map((c) => c.headers['webhook-id']))).to.deep.equal(
        new Set([pending.messageId]),
      );
      // The webhook secret came back from the database (decrypted) and still signs.
      for (const call of receiver.calls)
        expect(() => verifyWithLibrary(secret, call)).not.to.throw();
    });
  });
