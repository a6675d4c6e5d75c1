import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * An HTTP proxy in front of the API that can lose answers: the call reaches the API and is
 * carried out, then the connection is cut before the client sees the answer (a mobile network
 * dropping out after the write committed). CORS preflights are never lost.
 */
export interface LossyProxy {
  url: string;
  /** The next `count` calls whose method matches lose their answers. */
  loseAnswers: (count: number, method?: string) => void;
  /** While down, every connection is cut before anything is forwarded, preflights included: the API is out of reach. */
  down: (on: boolean) => void;
  /** Calls forwarded so far, by method. */
  forwarded: (method: string) => number;
  stop: () => Promise<void>;
}

export async function startLossyProxy(target: string): Promise<LossyProxy> {
  let toLose = 0;
  let loseMethod = 'POST';
  let isDown = false;
  const counts = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    if (isDown) {
      res.socket?.destroy();
      return;
    }
    counts.set(method, (counts.get(method) ?? 0) + 1);
    const lose = method === loseMethod && toLose > 0;
    if (lose) toLose--;
    const upstream = httpRequest(`${target}${req.url ?? '/'}`, { method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        if (lose) {
          res.socket?.destroy();
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
      });
    });
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    loseAnswers: (count, method = 'POST') => {
      toLose = count;
      loseMethod = method;
    },
    down: (on) => {
      isDown = on;
    },
    forwarded: (method) => counts.get(method) ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
