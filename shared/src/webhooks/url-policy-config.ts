import { bool, readEnv, str } from '../config/env';
import type { UrlPolicyOptions } from './url-policy';

interface UrlPolicyEnv {
  SWITCHYARD_MODE: string;
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean;
  WEBHOOK_REQUIRE_HTTPS: boolean;
  WEBHOOK_ALLOWLIST: string;
}

/**
 * Where webhooks may go, from the environment; read the same way by the gateway (which checks a
 * webhookUrl when it accepts the call) and by notification (which checks again when it sends).
 * Embedded mode runs on a laptop: local receivers over plain http are the normal case there.
 */
export function urlPolicyOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): UrlPolicyOptions {
  const mode = readEnv<{ SWITCHYARD_MODE: string }>(
    { SWITCHYARD_MODE: str({ choices: ['embedded', 'distributed'], default: 'distributed' }) },
    env,
  );
  const embedded = mode.SWITCHYARD_MODE === 'embedded';
  const e = readEnv<UrlPolicyEnv>(
    {
      SWITCHYARD_MODE: str({ default: 'distributed' }),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool({ default: embedded }),
      WEBHOOK_REQUIRE_HTTPS: bool({ default: !embedded }),
      WEBHOOK_ALLOWLIST: str({ default: '' }),
    },
    env,
  );
  return {
    requireHttps: e.WEBHOOK_REQUIRE_HTTPS,
    allowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    allowlist: e.WEBHOOK_ALLOWLIST.split(',')
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
  };
}
