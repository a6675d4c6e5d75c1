import { connect, createServer, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'garbage' | 'hang' | 'slow';

/** How long each answer of DynamoDB is held back in `slow` mode. */
export const SLOW_MS = 400;

export interface FaultProxy {
  endpoint: string;
  setMode: (mode: ProxyMode) => void;
  stop: () => Promise<void>;
}

/**
 * A TCP proxy in front of DynamoDB Local that can pass traffic, drop every connection (DynamoDB
 * unreachable), swallow requests and never answer (DynamoDB gone silent), hold every answer back
 * (DynamoDB slow), or answer with bytes that are not HTTP: faults a real server can't be made to show.
 */
export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  let mode: ProxyMode = 'pass';
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (mode === 'refuse') return void client.destroy();
    if (mode === 'hang') return void client.resume();
    if (mode === 'garbage')
      return void client.end('HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 9\r\n\r\n{"not":[}');
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    if (mode === 'slow') {
      upstream.on('data', (chunk: Buffer) => setTimeout(() => client.write(chunk), SLOW_MS));
      upstream.on('end', () => setTimeout(() => client.end(), SLOW_MS));
    } else {
      upstream.pipe(client);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    setMode: (next) => {
      mode = next;
      // Kept-alive connections would otherwise carry on as before.
      for (const socket of sockets) socket.destroy();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
