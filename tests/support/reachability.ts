import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

/*
 * Whether a local server can be reached from the network. The local stack listens on loopback
 * only (docs/security.md); a listener on every interface accepts a connection to this machine's
 * own network address, which is how tests/integration/local-binding.test.ts tells them apart.
 */

/** This machine's first external IPv4 address, if it has one. */
export function networkAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && !address.internal && address.family === 'IPv4')?.address;
}

/** 'open' when a TCP connection to host:port is accepted, else the refusal's code. */
export function probe(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}
