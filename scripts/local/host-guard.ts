import type { IncomingMessage, ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';
import { LOOPBACK_HOSTS } from '../../lib/config';

/*
 * Every listener of npm start answers only a request that names it by a loopback address, or by
 * an address it was told to listen on (0.0.0.0: this machine's own addresses, for a phone on the
 * LAN), never by a name. A web page on a domain that resolves to 127.0.0.1 (DNS rebinding) reaches
 * a loopback listener, but its requests carry the page's own domain as Host: they are refused with
 * 403 before anything is read or run, so the page can neither drive the stack nor read an answer.
 * Tools and the page itself name 127.0.0.1 or localhost.
 */

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** The host names a listener bound to `bound` answers to. */
function acceptedHosts(bound: string): Set<string> {
  const accepted = new Set(LOOPBACK_HOSTS);
  if (!WILDCARDS.has(bound)) return accepted.add(bound);
  for (const addresses of Object.values(networkInterfaces()))
    for (const { address, family } of addresses ?? []) accepted.add(family === 'IPv6' ? `[${address}]` : address);
  return accepted;
}

/** Why a request naming `host` is refused by a listener bound to `bound`, or undefined when it may pass. */
export function foreignHostRefusal(host: string | undefined, bound: string): string | undefined {
  if (host === undefined || host === '') return 'the request names no Host';
  const hostname = URL.canParse(`http://${host}`) ? new URL(`http://${host}`).hostname : undefined;
  if (hostname !== undefined && acceptedHosts(bound).has(hostname)) return undefined;
  return `Host ${JSON.stringify(host)} is neither loopback nor an address this listens on`;
}

/** True when the request named a foreign Host and was answered 403: the caller's handler then does nothing more. */
export function refusedForeignHost(req: IncomingMessage, res: ServerResponse, bound: string): boolean {
  const refusal = foreignHostRefusal(req.headers.host, bound);
  if (refusal === undefined) return false;
  req.resume();
  res
    .writeHead(403, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
    .end(JSON.stringify({ message: `The local stack answers requests to this machine only: ${refusal}` }));
  return true;
}
