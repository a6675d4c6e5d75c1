import { readDependencies } from '../lib/dependencies/routes';
import { apiRoute } from '../lib/http/edge';
import { requestPath } from '../lib/http/request';
import { getTerminationRequestDetails } from '../lib/termination/request-details';

/** GET /api/v1/contracts/{contractId}/termination-requests/{requestId}/details */
export const handler = apiRoute(readDependencies, (event, deps, customerId, context) =>
  getTerminationRequestDetails(deps, { customerId, ...requestPath(event), context }),
);
