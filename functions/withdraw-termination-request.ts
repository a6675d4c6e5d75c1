import { withdrawDependencies } from '../lib/dependencies/routes';
import { apiRoute } from '../lib/http/edge';
import { bodyRefusal, header, requestPath } from '../lib/http/request';
import { withdrawTerminationRequest } from '../lib/termination/withdraw-termination-request';

/** POST /api/v1/contracts/{contractId}/termination-requests/{requestId}/withdrawal: no body. */
export const handler = apiRoute(
  withdrawDependencies,
  (event, deps, customerId, context) =>
    bodyRefusal(event) ??
    withdrawTerminationRequest(deps, { customerId, ...requestPath(event), idempotencyKey: header(event, 'Idempotency-Key'), context }),
);
