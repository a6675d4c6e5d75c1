import { describe, expect, it } from 'vitest';
import { allowPolicy } from '../../lib/auth/policy';

describe('allowPolicy', () => {
  it('allows every method and resource of the API stage, for the customer', () => {
    const policy = allowPolicy(
      'customer-42',
      'arn:aws:execute-api:eu-central-1:123456789012:abc123/dev/POST/api/v1/contracts/x/termination-requests',
    );
    expect(policy).toEqual({
      principalId: 'customer-42',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-central-1:123456789012:abc123/dev/*/*' },
        ],
      },
      context: { customerId: 'customer-42' },
    });
  });

  it('keeps region, account, API and stage of the method ARN', () => {
    const policy = allowPolicy('c', 'arn:aws:execute-api:us-east-1:999999999999:zz9plural/prod/GET/health');
    expect(policy.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:us-east-1:999999999999:zz9plural/prod/*/*' },
    ]);
  });

  it('gives the same policy for different routes of the same stage (the answer is cached per token)', () => {
    const a = allowPolicy('c', 'arn:aws:execute-api:eu-central-1:123456789012:abc123/dev/POST/api/v1/contracts/a/termination-requests');
    const b = allowPolicy('c', 'arn:aws:execute-api:eu-central-1:123456789012:abc123/dev/POST/api/v1/contracts/b/termination-requests');
    expect(a).toEqual(b);
  });

  it('puts the customer id into principalId and context', () => {
    const policy = allowPolicy('9f8e7d6c-customer', 'arn:aws:execute-api:eu-central-1:123456789012:abc123/dev/POST/x');
    expect(policy.principalId).toBe('9f8e7d6c-customer');
    expect(policy.context).toEqual({ customerId: '9f8e7d6c-customer' });
  });

  it('widens to the stage even when the request path holds colons', () => {
    const policy = allowPolicy(
      'c',
      'arn:aws:execute-api:eu-central-1:123456789012:abc123/dev/POST/api/v1/contracts/urn:uuid:x/termination-requests',
    );
    expect(policy.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-central-1:123456789012:abc123/dev/*/*' },
    ]);
  });

  it('falls back to the method ARN itself when it has no stage', () => {
    const arn = 'arn:aws:execute-api:eu-central-1:123456789012:abc123';
    expect(allowPolicy('c', arn).policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: arn }]);
  });
});
