import { createServer, type Server } from 'node:net';

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

/**
 * Starts a server (node:http's is a node:net Server) on 127.0.0.1 and resolves with the port it
 * got: 0 picks a free one, with no race. Rejects when the port is taken.
 */
export async function listenOnLoopback(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}
