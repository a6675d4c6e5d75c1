import { randomUUID } from 'node:crypto';
import { directContext } from './call-context';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lib/aws/dynamodb-client';
import type { CreateCall, CreateDeps } from '../../lib/termination/create-termination-request';
import { DynamoDbTerminationStore } from '../../lib/dynamodb/termination-table';
import type { TableNames } from '../../scripts/local/tables';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { validBody } from './bodies';

/*
 * For tests that call the use case itself (no handler, no HTTP), to control its clock, its
 * DynamoDB client or its tables.
 */

/** A document client of its own for DynamoDB Local, quick to give up; middleware added to it touches no other test. */
export function localDocumentClient(endpoint: string): DynamoDBDocumentClient {
  return createDocumentClient({ region: 'eu-central-1', endpoint, requestTimeoutMs: 2000, connectTimeoutMs: 500, maxAttempts: 2 });
}

/** What the use case needs, on the given tables: the service's time zone, key lifetime and request limit, a 2 s budget. */
export function useCaseDeps(client: DynamoDBDocumentClient, tables: TableNames, overrides: Partial<CreateDeps> = {}): CreateDeps {
  return {
    store: new DynamoDbTerminationStore(client, { requests: tables.requests, contracts: tables.contracts, documents: tables.documents }),
    businessTimeZone: 'Europe/Moscow',
    idempotencyTtlSeconds: 24 * 3600,
    requestLimit: { count: 5, periodDays: 30 },
    budgetMs: 2000,
    ...overrides,
  };
}

/**
 * One call of the use case as the edge makes it, in English and with no edge problems: Anna's,
 * with a new key and a valid body unless told otherwise.
 */
export function useCaseCall(call: {
  contractId: string;
  customerId?: string;
  idempotencyKey?: string;
  body?: Record<string, unknown>;
}): CreateCall {
  return {
    customerId: call.customerId ?? DEMO_CUSTOMERS.anna.customerId,
    contractId: call.contractId,
    idempotencyKey: call.idempotencyKey ?? randomUUID(),
    body: call.body ?? validBody(),
    context: directContext(),
  };
}
