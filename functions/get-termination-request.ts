import { readDependencies } from '../lib/dependencies/routes';
import { apiRoute } from '../lib/http/edge';
import { requestPath } from '../lib/http/request';
import { getTerminationRequest } from '../lib/termination/read-termination-requests';

/** GET /api/v1/contracts/{contractId}/termination-requests/{requestId} */
export const handler = apiRoute(readDependencies, (event, deps, customerId, context) =>
  getTerminationRequest(deps, { customerId, ...requestPath(event), context }),
);
