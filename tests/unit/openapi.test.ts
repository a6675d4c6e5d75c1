import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../scripts/openapi';
import { ERROR_STATUS } from '../../lib/http/errors';
import { errorBodySchema, terminationRequestInputSchema, terminationRequestSchema } from '../../lib/validation/schemas';
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

  it('lists every errorCode as an example under its own status', () => {
    const document = loadDocument();
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(documentedResponse(document, status)?.exampleCodes, `${code} under ${status}`).toContain(code);
    }
  });
});
