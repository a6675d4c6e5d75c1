import { describe, expect, it } from 'vitest';
import { maskAccountNumber } from '../../lib/observability/logger';

describe('maskAccountNumber', () => {
  it('keeps the last four digits only', () => {
    expect(maskAccountNumber('40817810700000000001')).toBe('****************0001');
    expect(maskAccountNumber('40817810700000000001')).not.toMatch(/\d{5}/);
  });

  it('never shows more than four characters of a short value', () => {
    expect(maskAccountNumber('123')).toBe('123');
    expect(maskAccountNumber('12345')).toBe('*2345');
  });
});
