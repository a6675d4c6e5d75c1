import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../scripts/openapi';
import { ERROR_STATUS } from '../../lib/http/errors';
import { errorBodySchema, terminationRequestInputSchema, terminationRequestSchema } from '../../lib/validation/schemas';
import { jsonObject } from '../support/error-body';
import { loadDocument } from '../support/openapi-document';

/** errorCodes given as examples, by response status. */
function documentedResponsesByStatus(): Map<string, string[]> {
  const post = jsonObject(jsonObject(jsonObject(loadDocument()['paths'])['/api/v1/contracts/{contractId}/termination-requests'])['post']);
  return new Map(
    Object.entries(jsonObject(post['responses'])).map(([status, response]) => [
      status,
      Object.keys(jsonObject(jsonObject(jsonObject(jsonObject(response)['content'])['application/json'])['examples'])),
    ]),
  );
}

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
    const responses = documentedResponsesByStatus();
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(responses.get(String(status)), `${code} under ${status}`).toContain(code);
    }
  });
});
