import { createLogger, main, startTracing, stopOnSignals, stopTracing } from '@switchyard/shared';
import { fetchedLocalModel, fetchOnFirstStart } from '@switchyard/content';
import { EMBEDDED_SERVICES, startEmbeddedMesh } from './mesh';

const logger = createLogger('embedded');

/**
 * `npm start` answers with a real local model once `npm run model:fetch` put one in the cache
 * (unless LOCAL_MODEL_PATH, a registry or DEFAULT_MODEL already chooses); else with builtin.
 * The assistants stay on the model the operator (ASSISTANT_MODEL) or an agent's profile names.
 */
function withFetchedModel(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (
    env.LOCAL_MODEL_PATH ||
    env.MODEL_REGISTRY_PATH ||
    env.MODEL_REGISTRY_JSON ||
    env.DEFAULT_MODEL
  )
    return env;
  const fetched = fetchedLocalModel(env);
  if (!fetched) return env;
  return {
    ...env,
    LOCAL_MODEL_PATH: fetched.path,
    LOCAL_MODEL_ID: fetched.id,
    DEFAULT_MODEL: fetched.id,
  };
}

function modelLine(model: { id: string; provider: string }): string {
  const what =
    model.provider === 'builtin'
      ? 'the builtin phrase engine: no chat; `npm run model:fetch` gets a real local model'
      : model.provider;
  return `  ${'model'.padEnd(15)} ${model.id} (${what})`;
}

main(logger, async () => {
  // One process, every service: each keeps its own service.name in the traces.
  startTracing(EMBEDDED_SERVICES);
  await fetchOnFirstStart(process.env);
  const mesh = await startEmbeddedMesh(withFetchedModel(process.env), logger);
  stopOnSignals(logger, async () => {
    await mesh.stop();
    await stopTracing();
  });
  const lines = [
    '',
    `Switchyard is running (embedded mode) at ${mesh.gatewayUrl.replace('127.0.0.1', 'localhost')}`,
    ...mesh.services.map((s) => `  ${s.name.padEnd(15)} port ${s.port}`),
    modelLine(mesh.defaultModel),
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
