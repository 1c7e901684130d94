import { createServer } from 'node:net';

/** Whether something already listens on the port (the bind fails with EADDRINUSE). */
function inUse(port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(true) : reject(error),
    );
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}

/**
 * Fails, naming each port and its use, when any is taken: e.g. by a stack started before (a
 * second start must not report success against the first one's processes).
 */
export async function requireFreePorts(
  ports: Array<{ port: number; use: string }>,
  host = '0.0.0.0',
): Promise<void> {
  const taken: string[] = [];
  for (const { port, use } of ports) {
    if (port > 0 && (await inUse(port, host))) taken.push(`${port} (${use})`);
  }
  if (taken.length > 0) {
    throw new Error(
      `port(s) in use: ${taken.join(', ')}. Another stack or service is running: stop it, or choose ports with ` +
        'GATEWAY_PORT, CONTENT_ADDR, ASSISTANT_ADDR, RECOMMENDATION_ADDR, NOTIFICATION_ADDR and METRICS_PORT',
    );
  }
}
