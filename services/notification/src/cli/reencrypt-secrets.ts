import { connectMongo, createLogger, main } from '@switchyard/shared';
import { loadNotificationConfig } from '../config';
import { reencryptSecrets } from '../store/reencrypt';
import { SecretBox } from '../store/secret-box';

/**
 * npm run secrets:reencrypt: after SECRETS_ENCRYPTION_KEY was changed (the old key moved to
 * SECRETS_ENCRYPTION_OLD_KEYS), seals every stored webhook and signing secret with the new key.
 * Same environment as the notification service; safe while it runs, and to run again. Exits 1
 * when some record's secret opens with no key (those webhooks' deliveries fail until their secret
 * is rotated).
 */
const logger = createLogger('secrets-reencrypt');

main(logger, async () => {
  const config = loadNotificationConfig();
  if (!config.mongodbUri || !config.secretsEncryptionKey)
    throw new Error('MONGODB_URI and SECRETS_ENCRYPTION_KEY are required');
  const connection = await connectMongo(config.mongodbUri, config.mongodbDatabase, logger);
  try {
    const box = new SecretBox(config.secretsEncryptionKey, config.secretsEncryptionOldKeys);
    const report = await reencryptSecrets(connection.db, box);
    for (const [collection, part] of Object.entries(report)) {
      process.stdout.write(
        `${collection}: ${part.records} records, ${part.reencrypted} secrets sealed again with the current key` +
          (part.unreadable.length > 0
            ? `, ${part.unreadable.length} unreadable with every key: ${part.unreadable.join(', ')}`
            : '') +
          '\n',
      );
    }
    const unreadable = report.webhooks.unreadable.length + report.signingSecrets.unreadable.length;
    process.exitCode = unreadable > 0 ? 1 : 0;
  } finally {
    await connection.close();
  }
});
