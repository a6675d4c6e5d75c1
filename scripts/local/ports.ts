export class PortsError extends Error {
  constructor(problems: string[]) {
    super(`Cannot start the local stack:\n  ${problems.join('\n  ')}`);
    this.name = 'PortsError';
  }
}

/**
 * Stops npm start before anything starts when a port cannot serve: one Node's fetch refuses
 * (the WHATWG "bad ports", e.g. 6000 or 6665-6669: the service would start but never answer
 * its own readiness check), or one another program already listens on.
 */
export async function assertUsablePorts(ports: Record<string, number>): Promise<void> {
  const problems: string[] = [];
  for (const [name, port] of Object.entries(ports)) {
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      problems.push(`${name}=${port} is not a port number`);
      continue;
    }
    const answer = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) }).then(
      () => 'in use',
      (error: unknown) => (error instanceof Error && error.cause instanceof Error ? error.cause.message : ''),
    );
    if (answer === 'bad port') problems.push(`${name}=${port} is a port Node's fetch refuses (a WHATWG "bad port"); choose another`);
    else if (answer === 'in use') problems.push(`${name}=${port} is already in use (another npm start?); stop it or choose another`);
  }
  if (problems.length > 0) throw new PortsError(problems);
}
