import { describeDomainEvents } from '../suites/domain-events';
import { describeEventCatalog } from '../suites/event-catalog';
import { describeEventTypes } from '../suites/event-types';
import { describeOrderedDelivery } from '../suites/ordered-delivery';
import { describeWebhookControls } from '../suites/webhook-controls';
import type { MeshTarget } from '../suites/target';
import { realInfrastructure, startStack, type RunningStack } from '../support/stack';

const ADMIN_TOKEN = 'adm_domain_events_0123456789abcdef';

/**
 * The domain-event suites of test/e2e, run again through the gateway of a stack: event types on
 * MongoDB, publishing over the domain topic on Kafka, lanes, rate limits and the due queue on
 * Redis, each notification attempt a real HTTP call to the suites' receivers.
 */
describe('distributed: domain events through the stack gateway', function () {
  this.timeout(120_000);
  let run: RunningStack | undefined;
  const stack: MeshTarget = {
    name: 'stack',
    api: (path, options) => run!.api(path, options),
    adminToken: async () => ADMIN_TOKEN,
  };

  before(async function () {
    if (!realInfrastructure()) this.skip();
    run = await startStack({ ADMIN_TOKEN });
  });

  after(async () => {
    await run?.stack.stopAll();
  });

  describeEventTypes(stack);
  describeDomainEvents(stack);
  describeEventCatalog(stack);
  describeOrderedDelivery(stack);
  describeWebhookControls(stack);
});
