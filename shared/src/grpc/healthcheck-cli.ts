/**
 * `node shared/dist/src/grpc/healthcheck-cli.js <host:port> [service]`: exits 0 when the gRPC
 * server reports SERVING (grpc.health.v1), 1 otherwise. For container health checks.
 */
import { checkHealth } from './client';

const [address, service = ''] = process.argv.slice(2);
if (!address) {
  process.stderr.write('usage: healthcheck-cli <host:port> [service]\n');
  process.exit(2);
}
void checkHealth(address, service, 2000).then((status) => {
  process.stdout.write(`${status}\n`);
  process.exit(status === 'SERVING' ? 0 : 1);
});
