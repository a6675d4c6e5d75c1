import { listDependencies } from '../lib/dependencies/routes';
import { apiRoute } from '../lib/http/edge';
import { pageQuery } from '../lib/http/request';
import { listTerminationRequests } from '../lib/termination/read-termination-requests';

/** GET /api/v1/contracts/{contractId}/termination-requests?limit=&cursor= */
export const handler = apiRoute(listDependencies, (event, deps, customerId, context) =>
  listTerminationRequests(deps, { customerId, contractId: event.pathParameters?.['contractId'], ...pageQuery(event), context }),
);
