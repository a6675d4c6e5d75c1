import { afterEach, describe, expect, it, vi } from 'vitest';

describe('recordOutcome', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
    vi.restoreAllMocks();
  });

  it('writes one EMF line with the count in the configured namespace', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'TestNamespace');
    vi.resetModules(); // the module read the environment when first imported above
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const { recordOutcome } = await import('../../lib/observability/metrics');
    recordOutcome('ActiveRequestConflicts');
    const emf: unknown = JSON.parse(lines.join('').trim());
    expect(emf).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: 'TestNamespace', Metrics: [{ Name: 'ActiveRequestConflicts', Unit: 'Count' }] }] },
      ActiveRequestConflicts: 1,
      service: 'contract-termination',
    });
  });
});
