import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../scripts/openapi';
import { ERROR_CODES, OUTCOMES } from '../../lib/http/outcomes';
import { errorBodySchema, terminationRequestInputSchema, terminationRequestSchema } from '../../lib/api-model/schemas';
import { documentedResponse, loadDocument } from '../support/openapi-document';

const withoutId = (schema: object) => Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$id'));

describe('docs/openapi.yaml', () => {
  it('is what the builder makes from the code today (run npm run openapi after changing a schema)', () => {
    expect(loadDocument()).toEqual(JSON.parse(JSON.stringify(buildOpenApi())));
  });

  it('publishes the very schemas the validator compiles', () => {
    expect(loadDocument()['components']).toMatchObject({
      schemas: {
        TerminationRequestInput: JSON.parse(JSON.stringify(withoutId(terminationRequestInputSchema))),
        TerminationRequest: JSON.parse(JSON.stringify(withoutId(terminationRequestSchema))),
        Error: JSON.parse(JSON.stringify(withoutId(errorBodySchema))),
      },
    });
  });

  it('lists every errorCode as an example under its own status, in some operation', () => {
    const document = loadDocument();
    const operations = [
      { path: '/api/v1/contracts/{contractId}/termination-requests', method: 'post' },
      { path: '/api/v1/contracts/{contractId}/termination-requests', method: 'get' },
      { path: '/api/v1/contracts/{contractId}/termination-requests/{requestId}', method: 'get' },
      { path: '/api/v1/contracts/{contractId}/termination-requests/{requestId}/withdrawal', method: 'post' },
    ];
    for (const code of ERROR_CODES) {
      const status = OUTCOMES[code].status;
      const codes = operations.flatMap((operation) => documentedResponse(document, status, operation)?.exampleCodes ?? []);
      expect(codes, `${code} under ${status}`).toContain(code);
    }
  });
});
