import { describe, expect, it } from 'vitest';
import { lambdaCallRefusal } from '../../scripts/local/lambda-guard';

describe("the local Lambda API's guard (scripts/local/lambda-guard.ts)", () => {
  it.each(['127.0.0.1:3002', 'localhost:3002', 'LOCALHOST', '[::1]:3002', '127.0.0.1'])(
    'passes a tool on this machine: Host %s, no Origin',
    (host) => {
      expect(lambdaCallRefusal({ host })).toBeUndefined();
    },
  );

  it.each(['https://evil.example', 'null', 'http://127.0.0.1:3006', ''])(
    'refuses any call with an Origin header (%j): a web page sent it',
    (origin) => {
      expect(lambdaCallRefusal({ host: '127.0.0.1:3002', origin })).toMatch(/Origin/);
    },
  );

  it.each(['evil.example:3002', 'localhost.evil.example', '127.0.0.1.nip.io:3002', '10.0.0.5:3002', '0.0.0.0:3002', 'a b', ''])(
    'refuses a Host that is not loopback (%j): a page on a name that resolves to this machine',
    (host) => {
      expect(lambdaCallRefusal({ host })).toMatch(/Host/);
    },
  );

  it('refuses a call without a Host', () => {
    expect(lambdaCallRefusal({})).toMatch(/Host/);
  });
});
