import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** A row of the contracts table, which another system owns (docs/decisions/0007-contracts.md). */
export interface Contract {
  contractId: string;
  customerId: string;
  status: string;
  endDate?: string;
}

/** Demo customers and their contracts for the local stack; the ids are stable and documented. */
export const DEMO_CUSTOMERS = {
  anna: {
    customerId: 'customer-anna',
    contracts: {
      active: 'a1a1a1a1-0000-4000-8000-000000000001',
      withEndDate: 'a1a1a1a1-0000-4000-8000-000000000002',
      closed: 'a1a1a1a1-0000-4000-8000-000000000003',
    },
  },
  boris: {
    customerId: 'customer-boris',
    contracts: {
      active: 'b2b2b2b2-0000-4000-8000-000000000001',
      withEndDate: 'b2b2b2b2-0000-4000-8000-000000000002',
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

/** A valid pair (docs/decisions/0008-business-rules.md): the bank's BIK and an account whose control key matches it. */
export const DEMO_BANK_DETAILS = { bik: '044525225', accountNumber: '40817810700000000001', recipientName: 'Anna Ivanova' } as const;

export async function putContracts(client: DynamoDBDocumentClient, tableName: string, contracts: Contract[]): Promise<void> {
  for (let i = 0; i < contracts.length; i += 25) {
    await client.send(
      new BatchWriteCommand({ RequestItems: { [tableName]: contracts.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
    );
  }
}
