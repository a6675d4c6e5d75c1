import { loadCreateConfig, loadEdgeConfig, loadServiceConfig } from '../config';
import { storeFor } from '../dynamodb/termination-table';
import type { RouteDependencies } from '../http/edge';
import type { CreateDeps } from '../termination/create-termination-request';
import type { CustomerListDeps } from '../termination/customer-requests';
import type { ListDeps, ReadDeps } from '../termination/read-termination-requests';
import type { DetailsDeps } from '../termination/request-details';
import type { WithdrawDeps } from '../termination/withdraw-termination-request';

/*
 * What each API function is built from, once per cold start (lib/observability/lambda-context.ts
 * calls the builder): its configuration (lib/config.ts, which refuses a wrong setting there and
 * then) and its use case's dependencies. The other functions' builders are beside this file.
 */

export function createDependencies(): RouteDependencies<CreateDeps> {
  const config = loadCreateConfig();
  const { businessTimeZone, idempotencyTtlSeconds, requestLimit, budgetMs } = config;
  return { route: config, deps: { store: storeFor(config), businessTimeZone, idempotencyTtlSeconds, requestLimit, budgetMs } };
}

/** GET of one request, of its details, and the customer's own list: the store and the budget. */
export function readDependencies(): RouteDependencies<ReadDeps & DetailsDeps & CustomerListDeps> {
  const config = loadServiceConfig();
  return { route: config, deps: { store: storeFor(config), budgetMs: config.budgetMs } };
}

/** A contract's list: besides, the limit whose record its first page reads. */
export function listDependencies(): RouteDependencies<ListDeps> {
  const config = loadServiceConfig();
  return { route: config, deps: { store: storeFor(config), budgetMs: config.budgetMs, limit: config.requestLimit } };
}

export function withdrawDependencies(): RouteDependencies<WithdrawDeps> {
  const config = loadServiceConfig();
  const { idempotencyTtlSeconds, retention, budgetMs } = config;
  return { route: config, deps: { store: storeFor(config), idempotencyTtlSeconds, retention, budgetMs } };
}

/** The reasons read no table. */
export function reasonsDependencies(): RouteDependencies<undefined> {
  return { route: loadEdgeConfig(), deps: undefined };
}
