import { randomUUID } from 'node:crypto';
import { CreateTableCommand, UpdateTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Contract } from '../lib/contracts/contracts-table';
import { DEMO_BANK_DETAILS, DEMO_CONTRACTS, DEMO_CUSTOMERS, DEMO_END_DATE, putContracts } from '../scripts/local/demo-data';
import { createTables } from '../scripts/local/tables';

/*
 * The bench's data in its own DynamoDB Local: the service's tables (from the deployed
 * definitions), the peer's two tables, the demo contracts, and a pool of fresh ACTIVE contracts
 * per implementation, because a create takes the contract's one active slot for good.
 */

export const TABLES = {
  requests: 'bench-termination-requests',
  contracts: 'bench-contracts',
  peerIdempotency: 'bench-peer-idempotency',
  peerRequests: 'bench-peer-requests',
  /** The floor writes the service's five items, but into a table of its own. */
  floorRequests: 'bench-floor-requests',
} as const;

export const CUSTOMER = DEMO_CUSTOMERS.anna.customerId;
export const CLOSED_CONTRACT = DEMO_CUSTOMERS.anna.contracts.closed;
export const END_DATE_CONTRACT = DEMO_CUSTOMERS.anna.contracts.withEndDate;
/** After DEMO_END_DATE: TERMINATION_DATE_AFTER_CONTRACT_END on END_DATE_CONTRACT. */
export const DATE_AFTER_END = '2046-03-31';
export const DESIRED_DATE = '2045-06-30';

if (DATE_AFTER_END <= DEMO_END_DATE || DESIRED_DATE > DEMO_END_DATE) throw new Error('bench dates do not fit the demo end date');

/** A body that passes every rule, of the size a mobile client sends. */
export function validBody(desiredTerminationDate: string = DESIRED_DATE): Record<string, unknown> {
  return {
    reasonCode: 'RELOCATION',
    desiredTerminationDate,
    bankDetails: { ...DEMO_BANK_DETAILS },
    comment: 'Moving abroad for work; please close the contract early.',
    documentIds: [randomUUID(), randomUUID()],
  };
}

async function createKeyTable(client: DynamoDBClient, tableName: string, key: string, ttlAttribute: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true } }),
  );
}

export async function createBenchTables(client: DynamoDBClient): Promise<void> {
  await createTables(client, { requests: TABLES.requests, contracts: TABLES.contracts });
  // Powertools' defaults: partition key `id`, TTL on `expiration`.
  await createKeyTable(client, TABLES.peerIdempotency, 'id', 'expiration');
  await createKeyTable(client, TABLES.peerRequests, 'pk', 'expiresAt');
  await createKeyTable(client, TABLES.floorRequests, 'pk', 'expiresAt');
}

/** `count` new ACTIVE contracts of the bench customer, written to the contracts table. */
export async function freshContracts(doc: DynamoDBDocumentClient, count: number): Promise<string[]> {
  const contracts: Contract[] = Array.from({ length: count }, () => ({ contractId: randomUUID(), customerId: CUSTOMER, status: 'ACTIVE' }));
  await putContracts(doc, TABLES.contracts, contracts);
  return contracts.map((c) => c.contractId);
}

export async function loadDemoContracts(doc: DynamoDBDocumentClient): Promise<void> {
  await putContracts(doc, TABLES.contracts, DEMO_CONTRACTS);
}

/** Hands out contracts one by one; running out is a bench bug, not a measurement. */
export class ContractPool {
  private next = 0;
  constructor(
    private readonly name: string,
    private readonly ids: string[],
  ) {}

  take(): string {
    const id = this.ids[this.next++];
    if (id === undefined) throw new Error(`bench: contract pool "${this.name}" is empty`);
    return id;
  }
}
