import { createDependencies } from '../lib/dependencies/routes';
import { apiRoute } from '../lib/http/edge';
import { header, readJsonObjectBody } from '../lib/http/request';
import { createTerminationRequest } from '../lib/termination/create-termination-request';

/** POST /api/v1/contracts/{contractId}/termination-requests */
export const handler = apiRoute(createDependencies, (event, deps, customerId, context) => {
  const read = readJsonObjectBody(event);
  if (read.kind === 'refused') return read;
  return createTerminationRequest(deps, {
    customerId,
    contractId: event.pathParameters?.['contractId'],
    idempotencyKey: header(event, 'Idempotency-Key'),
    body: read.body,
    context,
  });
});
