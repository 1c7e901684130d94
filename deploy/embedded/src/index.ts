import { createLogger, main, startTracing, stopOnSignals, stopTracing } from '@switchyard/shared';
import { EMBEDDED_SERVICES, startEmbeddedMesh } from './mesh';

const logger = createLogger('embedded');

main(logger, async () => {
  // One process, every service: each keeps its own service.name in the traces.
  startTracing(EMBEDDED_SERVICES);
  const mesh = await startEmbeddedMesh(process.env, logger);
  stopOnSignals(logger, async () => {
    await mesh.stop();
    await stopTracing();
  });
  const lines = [
    '',
    `Switchyard is running (embedded mode) at ${mesh.gatewayUrl.replace('127.0.0.1', 'localhost')}`,
    ...mesh.services.map((s) => `  ${s.name.padEnd(15)} port ${s.port}`),
  ];
  // Printed deliberately, once, for the local developer: these are the dev organization's
  // credentials of this embedded run (generated because DEV_API_KEY / DEV_SIGNING_SECRET /
  // ADMIN_TOKEN were unset).
  if (mesh.generated.apiKey) lines.push(`  API key (organization "dev"):        ${mesh.apiKey}`);
  if (mesh.generated.signingSecret)
    lines.push(`  Signing secret (organization "dev"): ${mesh.signingSecret}`);
  if (mesh.generated.adminToken)
    lines.push(`  Admin token (admin API and CLI):     ${mesh.adminToken}`);
  lines.push(
    '',
    `Console: ${mesh.gatewayUrl.replace('127.0.0.1', 'localhost')}/console (sign in with the API key, or the admin token)`,
    `Try: curl -s ${mesh.gatewayUrl}/api/v2/ai/content/generate -H 'Authorization: X-API-Key ${mesh.generated.apiKey ? mesh.apiKey : '$DEV_API_KEY'}' \\`,
    `       -H 'Content-Type: application/json' -d '{"prompt":"A launch post for our new trail shoes","tone":"playful"}'`,
    `Admin: GATEWAY_URL=${mesh.gatewayUrl} ADMIN_TOKEN=${mesh.generated.adminToken ? mesh.adminToken : '$ADMIN_TOKEN'} npm run admin -- org list`,
    '',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
});
