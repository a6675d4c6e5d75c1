import { readDependencies } from '../lib/dependencies/routes';
import { apiRoute } from '../lib/http/edge';
import { pageQuery } from '../lib/http/request';
import { listCustomerTerminationRequests } from '../lib/termination/customer-requests';

/** GET /api/v1/termination-requests?limit=&cursor= */
export const handler = apiRoute(readDependencies, (event, deps, customerId, context) =>
  listCustomerTerminationRequests(deps, { customerId, ...pageQuery(event), context }),
);
