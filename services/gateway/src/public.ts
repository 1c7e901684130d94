/**
 * What other packages use of the gateway: the embedded mesh starts it, the deploy tests read its
 * configuration and lint its OpenAPI document.
 */
export { loadGatewayConfig, type GatewayConfig } from './config';
export { startGateway, type GatewayOptions } from './server';
export { buildOpenApi } from './openapi';
export { routeTable } from './routes';
