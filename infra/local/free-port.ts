import { createServer } from 'node:net';

/**
 * A port nobody listens on right now. Only for children that need a port number up front (the
 * DynamoDB Local JVM); our own servers listen on port 0 instead, which has no race at all.
 */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('Could not find a free port'))));
    });
  });
}
