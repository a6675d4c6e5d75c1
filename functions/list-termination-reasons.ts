import { reasonsDependencies } from '../lib/dependencies/routes';
import { apiRoute } from '../lib/http/edge';
import { listTerminationReasons } from '../lib/termination/reasons';

/** GET /api/v1/termination-reasons: the reasons a customer may give, labelled in their language. */
export const handler = apiRoute(reasonsDependencies, (_event, _deps, _customerId, context) => listTerminationReasons(context));
