import { describe, expect, it } from 'vitest';
import { requestLocation } from '../../lib/http/location';
import { apiEvent } from '../../scripts/local/api-event';

const contractId = 'a1a1a1a1-0000-4000-8000-000000000001';
const requestId = '01a201f5-c77c-74d6-b8bd-b65138f2e11f';
const route = `/api/v1/contracts/${contractId}/termination-requests`;

/** The create event as API Gateway sends it when the client called `clientPath`. */
function calledAt(clientPath: string, eventPath: string = route) {
  const event = apiEvent({ contractId });
  return { ...event, path: eventPath, requestContext: { ...event.requestContext, path: clientPath } };
}

describe('requestLocation: the GET of the new request, as the client reached the API', () => {
  it('on an execute-api URL, keeps the stage prefix', () => {
    expect(requestLocation(calledAt(`/prod${route}`), contractId, requestId)).toBe(`/prod${route}/${requestId}`);
  });

  it('on a custom domain, keeps the base path, whether or not API Gateway puts it in event.path', () => {
    expect(requestLocation(calledAt(`/termination${route}`), contractId, requestId)).toBe(`/termination${route}/${requestId}`);
    expect(requestLocation(calledAt(`/termination${route}`, `/termination${route}`), contractId, requestId)).toBe(
      `/termination${route}/${requestId}`,
    );
  });

  it('on a custom domain mapped at its root, and locally (serverless offline), is the route itself', () => {
    expect(requestLocation(calledAt(route), contractId, requestId)).toBe(`${route}/${requestId}`);
  });
});
