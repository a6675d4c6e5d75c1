import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { foreignHostRefusal } from './host-guard';

/*
 * serverless offline's Lambda API (Invoke, on LAMBDA_PORT) runs any function for any caller and
 * grants CORS to any Origin; a text/plain POST is a simple request that a browser sends without
 * a preflight. So while npm start runs, any web page the developer opens could invoke the
 * consumer or the publisher (and read the answers). Taking the CORS grant away would not stop the
 * function from running. Instead serverless offline listens on a Unix socket of its own, which no
 * browser can reach, and this guard takes LAMBDA_PORT on loopback and passes a call on only when
 * it comes from a tool on this machine: no Origin header (browsers send one with every
 * cross-origin call and every POST) and a Host that names loopback (a page on a domain that
 * resolves to 127.0.0.1, DNS rebinding, sends its own name). Anything else is refused with 403
 * before any function runs. The operator tools (npm run redrive, the AWS SDK's Lambda client),
 * npm start's own calls (the rule's deliveries, the stream poller) and the tests send neither.
 */

/** Why a call to the local Lambda API is refused, or undefined when it may pass on. */
export function lambdaCallRefusal(headers: IncomingHttpHeaders): string | undefined {
  if (headers.origin !== undefined) return 'the call carries an Origin header: a web page sent it';
  return foreignHostRefusal(headers.host, '127.0.0.1');
}

export interface LambdaGuard {
  url: string;
  stop: () => Promise<void>;
}

/** The guard on `port` (loopback only), in front of serverless offline's Lambda API on `socketPath`. */
export async function startLambdaGuard(options: { port: number; socketPath: string }): Promise<LambdaGuard> {
  const server: Server = createServer((req, res) => {
    const refusal = lambdaCallRefusal(req.headers);
    if (refusal !== undefined) {
      req.resume();
      res
        .writeHead(403, { 'Content-Type': 'application/json', 'X-Amzn-ErrorType': 'AccessDeniedException' })
        .end(JSON.stringify({ Type: 'User', message: `The local Lambda API takes calls from tools on this machine only: ${refusal}` }));
      return;
    }
    const upstream = request({ socketPath: options.socketPath, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy(error);
      else
        res.writeHead(502, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: `serverless offline: ${error.message}` }));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${options.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
