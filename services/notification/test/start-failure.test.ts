import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { InMemoryEventBus } from '@switchyard/shared';
import { silentLogger } from '@switchyard/shared/testing';
import { loadNotificationConfig, startNotificationService } from '../src/server';
import { inMemoryStores } from '../src/store';
import { expect } from './chai';
import { TEST_ENV, until } from './helpers';
import { usageRecorded } from './usage-fixtures';

describe('a notification start that fails', () => {
  it('leaves no consumer behind when its gRPC port is taken: the events wait for the next start', async () => {
    // The consumer groups are joined while the gRPC server binds: a failed bind must take them back.
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const bus = new InMemoryEventBus({ retryBaseMs: 5 });
    const stores = inMemoryStores();
    const logger = silentLogger();
    try {
      const failed = await startNotificationService({
        config: loadNotificationConfig({ ...TEST_ENV, GRPC_PORT: String(port) }),
        bus,
        logger,
        stores,
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).to.be.instanceOf(Error);
      const event = usageRecorded();
      await bus.publish(event);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await stores.usageLedger.owners([event.id])).size).to.equal(0);

      const service = await startNotificationService({
        config: loadNotificationConfig(TEST_ENV),
        bus,
        logger,
        stores,
      });
      try {
        await until(async () => (await stores.usageLedger.owners([event.id])).size === 1);
      } finally {
        await service.stop();
      }
    } finally {
      await bus.close();
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
