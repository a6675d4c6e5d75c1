import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/*
 * An HTTP proxy in front of DynamoDB Local. It counts every request that reaches DynamoDB by its
 * X-Amz-Target (one count per HTTP round trip, retries included, whatever client or bundle sent
 * it) and can hold each one for a fixed delay first, to stand in for the network distance to a
 * real DynamoDB endpoint.
 */

export interface CountingProxy {
  endpoint: string;
  /** Round trips so far, all operations together. */
  total: () => number;
  /** Milliseconds spent on round trips so far (request in to response out, the delay included). */
  busyMs: () => number;
  /** Round trips so far by operation, e.g. { TransactWriteItems: 3 }. */
  byOperation: () => Record<string, number>;
  /** The operations of the round trips after the first `mark` ones, in order (the last 128 or more). */
  since: (mark: number) => string[];
  setDelay: (ms: number) => void;
  stop: () => Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const counts = new Map<string, number>();
  let total = 0;
  let delayMs = 0;
  let busyMs = 0;
  const recent: string[] = [];
  let recentBase = 0;
  const sockets = new Set<Socket>();

  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const arrived = performance.now();
    res.once('finish', () => (busyMs += performance.now() - arrived));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    const targetHeader = req.headers['x-amz-target'];
    const operation = (typeof targetHeader === 'string' ? targetHeader : 'unknown').replace(/^DynamoDB_\d+\./, '');
    counts.set(operation, (counts.get(operation) ?? 0) + 1);
    total++;
    recent.push(operation);
    if (recent.length > 256) {
      recent.splice(0, 128);
      recentBase += 128;
    }
    if (delayMs > 0) await sleep(delayMs);
    const outgoing = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`counting proxy: ${error.message}`);
    });
    outgoing.end(Buffer.concat(chunks));
  };

  const server = createServer((req, res) => {
    forward(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    total: () => total,
    busyMs: () => busyMs,
    byOperation: () => Object.fromEntries(counts),
    since: (mark) => recent.slice(Math.max(0, mark - recentBase)),
    setDelay: (ms) => {
      delayMs = ms;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
