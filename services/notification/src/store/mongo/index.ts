import type { Db } from 'mongodb';
import type { NotificationStores } from '..';
import type { SecretBox } from '../secret-box';
import { MongoDeliveryStore } from './delivery-store';
import { MongoSigningSecretStore } from './signing-secret-store';
import { MongoPolicyStore } from './policy-store';
import { MongoThresholdStore } from './threshold-store';
import { MongoUsageLedgerStore } from './usage-ledger-store';
import { MongoWebhookStore } from './webhook-store';

export { ensureIndexes, Collections } from './collections';
export { MongoDeliveryStore, newLeaseOwner } from './delivery-store';

/** Every notification store on one database (indexes must exist: ensureIndexes). */
export function mongoStores(db: Db, box: SecretBox): NotificationStores {
  return {
    webhooks: new MongoWebhookStore(db, box),
    deliveries: new MongoDeliveryStore(db),
    signingSecrets: new MongoSigningSecretStore(db, box),
    usageLedger: new MongoUsageLedgerStore(db),
    thresholds: new MongoThresholdStore(db),
    policies: new MongoPolicyStore(db),
  };
}
