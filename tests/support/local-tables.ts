import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { localClient } from '../../scripts/local/dynamodb-local';
import { DEMO_CONTRACTS, DEMO_DOCUMENTS, putContracts, putDocuments, type Contract, type Document } from '../../scripts/local/demo-data';
import { createLedgerTable, createTables, type TableNames } from '../../scripts/local/tables';

export interface TestTables {
  names: TableNames;
  /** The erasure ledger (npm run erase writes it, the publisher reads its stream). */
  ledger: string;
  doc: DynamoDBDocumentClient;
  endpoint: string;
  /** Every item of the service's table. */
  requestItems: () => Promise<Record<string, unknown>[]>;
  /** The items of the service's table that belong to one contract. */
  contractItems: (contractId: string) => Promise<Record<string, unknown>[]>;
  addContracts: (contracts: Contract[]) => Promise<void>;
  /** Writes documents as the documents service would. */
  addDocuments: (documents: Document[]) => Promise<void>;
}

/** Every item of a table, read consistently, page after page. */
export async function scanAll(doc: DynamoDBDocumentClient, tableName: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * The items of the requests table that belong to one contract, its active-request slot and limit
 * records included, and the number items of its requests (which hold the number alone).
 */
export function itemsOfContract(items: Record<string, unknown>[], contractId: string): Record<string, unknown>[] {
  const own = items.filter((item) => item['contractId'] === contractId || item['pk'] === `CONTRACT#${contractId}`);
  const numbers = new Set(own.filter((item) => item['kind'] === 'REQUEST').map((item) => `NUMBER#${String(item['requestNumber'])}`));
  return [...own, ...items.filter((item) => item['kind'] === 'REQUEST_NUMBER' && numbers.has(String(item['pk'])))];
}

/** The items of one kind: REQUEST, IDEMPOTENCY, ACTIVE_SLOT, REQUEST_NUMBER or REQUEST_LIMIT. */
export function ofKind(items: Record<string, unknown>[], kind: string): Record<string, unknown>[] {
  return items.filter((item) => item['kind'] === kind);
}

/**
 * Tables of this test file's own (unique names, demo contracts loaded) in the run's DynamoDB
 * Local, and the environment the handler's config reads at import. Import handlers after it.
 */
export async function useFreshTables(): Promise<TestTables> {
  const endpoint = inject('dynamoDbEndpoint');
  const suffix = randomUUID().slice(0, 8);
  const names = { requests: `requests-${suffix}`, contracts: `contracts-${suffix}`, documents: `documents-${suffix}` };
  const ledger = `erasures-${suffix}`;
  const client = localClient(endpoint);
  await createTables(client, names);
  await createLedgerTable(client, ledger);
  const doc = DynamoDBDocumentClient.from(client);
  await putContracts(doc, names.contracts, DEMO_CONTRACTS);
  await putDocuments(doc, names.documents, DEMO_DOCUMENTS);
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: endpoint,
    REQUESTS_TABLE_NAME: names.requests,
    ERASURE_LEDGER_TABLE_NAME: ledger,
    CONTRACTS_TABLE_NAME: names.contracts,
    DOCUMENTS_TABLE_NAME: names.documents,
    AWS_REGION: 'eu-central-1',
    POWERTOOLS_LOG_LEVEL: process.env['POWERTOOLS_LOG_LEVEL'] ?? 'SILENT',
  });
  return {
    names,
    ledger,
    doc,
    endpoint,
    requestItems: () => scanAll(doc, names.requests),
    contractItems: async (contractId) => itemsOfContract(await scanAll(doc, names.requests), contractId),
    addContracts: (contracts) => putContracts(doc, names.contracts, contracts),
    addDocuments: (documents) => putDocuments(doc, names.documents, documents),
  };
}
