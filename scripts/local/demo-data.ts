import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { USABLE_DOCUMENT_STATUS } from '../../lib/termination/documents';

/** A row of the contracts table, which another system owns (docs/decisions/0007-contracts.md). */
export interface Contract {
  contractId: string;
  customerId: string;
  status: string;
  endDate?: string;
}

/**
 * Demo customers, their contracts and their uploaded documents for the local stack; the ids are
 * stable and documented. Each has a name as the bank's systems hold it (Cyrillic) and as the
 * English page writes it, and an account of their own at the bank, where the balance is paid
 * unless they name another: a BIK and an account whose control key matches it
 * (docs/decisions/0008-business-rules.md).
 */
export const DEMO_CUSTOMERS = {
  anna: {
    customerId: 'customer-anna',
    name: { en: 'Anna Ivanova', ru: 'Анна Иванова' },
    bankDetails: { bik: '044525225', accountNumber: '40817810700000000001', recipientName: 'Анна Иванова' },
    contracts: {
      active: 'a1a1a1a1-0000-4000-8000-000000000001',
      withEndDate: 'a1a1a1a1-0000-4000-8000-000000000002',
      closed: 'a1a1a1a1-0000-4000-8000-000000000003',
    },
    documents: {
      passport: 'd0c5e1a2-4b6f-4c3d-8e9a-000000000001',
      relocation: 'd0c5e1a2-4b6f-4c3d-8e9a-000000000002',
      /** Still being checked by the documents service: not usable yet. */
      pending: 'd0c5e1a2-4b6f-4c3d-8e9a-000000000003',
    },
  },
  boris: {
    customerId: 'customer-boris',
    name: { en: 'Boris Petrov', ru: 'Борис Петров' },
    bankDetails: { bik: '044525225', accountNumber: '40817810400000005678', recipientName: 'Борис Петров' },
    contracts: {
      active: 'b2b2b2b2-0000-4000-8000-000000000001',
      withEndDate: 'b2b2b2b2-0000-4000-8000-000000000002',
    },
    documents: {
      offer: 'd0c5e1a2-4b6f-4c3d-8e9a-000000000101',
    },
  },
} as const;

export const DEMO_END_DATE = '2045-12-31';

export const DEMO_CONTRACTS: Contract[] = [
  { contractId: DEMO_CUSTOMERS.anna.contracts.active, customerId: DEMO_CUSTOMERS.anna.customerId, status: 'ACTIVE' },
  {
    contractId: DEMO_CUSTOMERS.anna.contracts.withEndDate,
    customerId: DEMO_CUSTOMERS.anna.customerId,
    status: 'ACTIVE',
    endDate: DEMO_END_DATE,
  },
  { contractId: DEMO_CUSTOMERS.anna.contracts.closed, customerId: DEMO_CUSTOMERS.anna.customerId, status: 'CLOSED' },
  { contractId: DEMO_CUSTOMERS.boris.contracts.active, customerId: DEMO_CUSTOMERS.boris.customerId, status: 'ACTIVE' },
  {
    contractId: DEMO_CUSTOMERS.boris.contracts.withEndDate,
    customerId: DEMO_CUSTOMERS.boris.customerId,
    status: 'ACTIVE',
    endDate: DEMO_END_DATE,
  },
];

/**
 * How the personal account shows each demo contract: a product name in each language and the
 * contract's number masked. The page only (served in its /config.json): the contracts table
 * belongs to another system, and this service neither stores nor answers with these.
 */
export interface ContractDisplay {
  product: { en: string; ru: string };
  maskedNumber: string;
}

export const DEMO_CONTRACT_DISPLAY: Record<string, ContractDisplay> = {
  [DEMO_CUSTOMERS.anna.contracts.active]: { product: { en: 'Credit card', ru: 'Кредитная карта' }, maskedNumber: '•• 4821' },
  [DEMO_CUSTOMERS.anna.contracts.withEndDate]: { product: { en: 'Mortgage', ru: 'Ипотека' }, maskedNumber: '•• 7730' },
  [DEMO_CUSTOMERS.anna.contracts.closed]: { product: { en: 'Cash loan', ru: 'Потребительский кредит' }, maskedNumber: '•• 1964' },
  [DEMO_CUSTOMERS.boris.contracts.active]: { product: { en: 'Current account', ru: 'Текущий счёт' }, maskedNumber: '•• 3307' },
  [DEMO_CUSTOMERS.boris.contracts.withEndDate]: { product: { en: 'Car loan', ru: 'Автокредит' }, maskedNumber: '•• 5518' },
};

/** How the page shows a demo contract. */
export function demoContractDisplay(contractId: string): ContractDisplay {
  const display = DEMO_CONTRACT_DISPLAY[contractId];
  if (display === undefined) throw new Error(`scripts/local/demo-data.ts: no display name for contract ${contractId}`);
  return display;
}

/** A row of the documents table, which the documents service owns and writes (docs/decisions/0019-documents.md). */
export interface Document {
  documentId: string;
  customerId: string;
  /** USABLE_DOCUMENT_STATUS (UPLOADED): stored, checked and usable; anything else is not. */
  status: string;
  fileName: string;
  uploadedAt: string;
}

export const DEMO_DOCUMENTS: Document[] = [
  {
    documentId: DEMO_CUSTOMERS.anna.documents.passport,
    customerId: DEMO_CUSTOMERS.anna.customerId,
    status: USABLE_DOCUMENT_STATUS,
    fileName: 'passport-scan.pdf',
    uploadedAt: '2026-11-02T08:15:00.000Z',
  },
  {
    documentId: DEMO_CUSTOMERS.anna.documents.relocation,
    customerId: DEMO_CUSTOMERS.anna.customerId,
    status: USABLE_DOCUMENT_STATUS,
    fileName: 'new-employment-contract.pdf',
    uploadedAt: '2026-11-03T17:40:00.000Z',
  },
  {
    documentId: DEMO_CUSTOMERS.anna.documents.pending,
    customerId: DEMO_CUSTOMERS.anna.customerId,
    status: 'SCANNING',
    fileName: 'bank-statement.pdf',
    uploadedAt: '2026-11-04T09:05:00.000Z',
  },
  {
    documentId: DEMO_CUSTOMERS.boris.documents.offer,
    customerId: DEMO_CUSTOMERS.boris.customerId,
    status: USABLE_DOCUMENT_STATUS,
    fileName: 'competitor-offer.pdf',
    uploadedAt: '2026-11-05T12:00:00.000Z',
  },
];

/** A valid pair (docs/decisions/0008-business-rules.md): Anna's own account, for calls made as her. */
export const DEMO_BANK_DETAILS = DEMO_CUSTOMERS.anna.bankDetails;

async function putItems(client: DynamoDBDocumentClient, tableName: string, items: object[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    await client.send(
      new BatchWriteCommand({
        RequestItems: { [tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item: { ...Item } } })) },
      }),
    );
  }
}

export const putContracts = (client: DynamoDBDocumentClient, tableName: string, contracts: Contract[]): Promise<void> =>
  putItems(client, tableName, contracts);

const isContract = (item: Record<string, unknown>): item is Record<string, unknown> & Contract =>
  typeof item['contractId'] === 'string' &&
  typeof item['customerId'] === 'string' &&
  typeof item['status'] === 'string' &&
  (item['endDate'] === undefined || typeof item['endDate'] === 'string');

/** The contracts as the contracts table holds them now (the contracts service writes it), in the order asked. */
export async function readContracts(client: DynamoDBDocumentClient, tableName: string, contractIds: string[]): Promise<Contract[]> {
  if (contractIds.length === 0) return [];
  const { Responses } = await client.send(
    new BatchGetCommand({
      RequestItems: { [tableName]: { Keys: contractIds.map((contractId) => ({ contractId })), ConsistentRead: true } },
    }),
  );
  const found = (Responses?.[tableName] ?? []).filter(isContract);
  return contractIds.flatMap((id) => {
    const item = found.find((contract) => contract.contractId === id);
    return item === undefined
      ? []
      : [
          {
            contractId: item.contractId,
            customerId: item.customerId,
            status: item.status,
            ...(item.endDate ? { endDate: item.endDate } : {}),
          },
        ];
  });
}

/** Writes documents as the documents service would (the service itself only checks them). */
export const putDocuments = (client: DynamoDBDocumentClient, tableName: string, documents: Document[]): Promise<void> =>
  putItems(client, tableName, documents);
