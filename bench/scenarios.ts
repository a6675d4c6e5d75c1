import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { apiEvent, lambdaContext, statusOf, bodyOf, type CallOptions } from './api-event';
import { CLOSED_CONTRACT, CUSTOMER, DATE_AFTER_END, END_DATE_CONTRACT, TABLES, validBody, type ContractPool } from './fixtures';
import { floorTransaction, sendFloor } from './floor';
import type { Implementation, Scenario } from './latency';

/*
 * The paths measured, the same for the service (TypeScript handler and esbuild bundle) and the
 * peer: create (201), replay of the same call (200), another key on a contract with an active
 * request (409), a closed contract (422) and a date after the contract's end (422).
 */

export type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>;

/** A request already created through an implementation: replayed as is, and its contract answers 409. */
export interface Seed {
  call: CallOptions;
}

export async function seed(handler: Handler, contractId: string, name: string): Promise<Seed> {
  const call = { customerId: CUSTOMER, contractId, idempotencyKey: randomUUID(), body: validBody() };
  const result = await handler(apiEvent(call), lambdaContext(name));
  if (statusOf(result) !== 201) throw new Error(`bench: seeding ${name} answered ${statusOf(result)}: ${bodyOf(result)}`);
  return { call };
}

export const PATHS = {
  create: 'create',
  replay: 'replay',
  conflict: '409 active request',
  closed: '422 contract closed',
  afterEnd: '422 date after end',
} as const;

function httpScenarios(impl: Implementation, handler: Handler, pool: ContractPool, seeded: Seed, sdkVisible: boolean): Scenario[] {
  const invoke = (call: CallOptions) => {
    const event = apiEvent(call);
    const context = lambdaContext(`termination-${impl}`);
    return () => handler(event, context);
  };
  const fresh = (contractId: string, body: unknown = validBody()) => ({
    customerId: CUSTOMER,
    contractId,
    idempotencyKey: randomUUID(),
    body,
  });
  return [
    { path: PATHS.create, impl, expect: 201, sdkVisible, prepare: () => invoke(fresh(pool.take())) },
    { path: PATHS.replay, impl, expect: 200, sdkVisible, prepare: () => invoke(seeded.call) },
    { path: PATHS.conflict, impl, expect: 409, sdkVisible, prepare: () => invoke(fresh(seeded.call.contractId)) },
    { path: PATHS.closed, impl, expect: 422, sdkVisible, prepare: () => invoke(fresh(CLOSED_CONTRACT)) },
    { path: PATHS.afterEnd, impl, expect: 422, sdkVisible, prepare: () => invoke(fresh(END_DATE_CONTRACT, validBody(DATE_AFTER_END))) },
  ];
}

export interface Implementations {
  floorClient: DynamoDBClient;
  service: Handler;
  bundle: Handler | undefined;
  peer: Handler;
}

export interface Pools {
  floor: ContractPool;
  service: ContractPool;
  bundle: ContractPool;
  peer: ContractPool;
}

export function buildScenarios(impls: Implementations, pools: Pools, seeds: { service: Seed; peer: Seed }): Scenario[] {
  const floor: Scenario = {
    path: PATHS.create,
    impl: 'floor',
    expect: 0,
    sdkVisible: true,
    prepare: () => {
      const input = floorTransaction({ requests: TABLES.floorRequests, contracts: TABLES.contracts }, pools.floor.take(), CUSTOMER);
      return () => sendFloor(impls.floorClient, input);
    },
  };
  return [
    floor,
    ...httpScenarios('service', impls.service, pools.service, seeds.service, true),
    ...(impls.bundle ? httpScenarios('bundle', impls.bundle, pools.bundle, seeds.service, false) : []),
    ...httpScenarios('peer', impls.peer, pools.peer, seeds.peer, true),
  ];
}
