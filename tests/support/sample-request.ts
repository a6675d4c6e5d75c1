import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { buildCreateTransaction } from '../../lib/dynamodb/create-transaction';
import { contractConditionFor } from '../../lib/termination/contract-rules';
import { documentConditionFor } from '../../lib/termination/documents';
import type { NewRequest } from '../../lib/termination/ports';
import type { TableNames } from '../../scripts/local/tables';
import { DEMO_BANK_DETAILS, DEMO_CUSTOMERS } from '../../scripts/local/demo-data';

/*
 * The request the sample events of events/ are about (decision-*.json name it, stream-*.json
 * carry it): written by the create's own transaction, with fixed ids, so the samples can be
 * replayed against fresh tables.
 */

export const SAMPLE_REQUEST_ID = '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01';
export const SAMPLE_CONTRACT_ID = DEMO_CUSTOMERS.anna.contracts.active;

const createdAt = '2026-11-23T09:15:00.000Z';
const desiredTerminationDate = '2045-06-30';

export const SAMPLE_REQUEST: NewRequest = {
  requestId: SAMPLE_REQUEST_ID,
  requestNumber: 'TR-7KQM-X2PF',
  customerId: DEMO_CUSTOMERS.anna.customerId,
  contractId: SAMPLE_CONTRACT_ID,
  idempotencyKey: '5f0c2a8e-3b1d-4e6f-9a7c-2d4e6f8a0b1c',
  fingerprint: 'sample-fingerprint',
  input: {
    reasonCode: 'RELOCATION',
    desiredTerminationDate,
    bankDetails: { ...DEMO_BANK_DETAILS },
    comment: 'Moving abroad',
  },
  response: {
    requestId: SAMPLE_REQUEST_ID,
    requestNumber: 'TR-7KQM-X2PF',
    status: 'SUBMITTED',
    createdAt,
    message: 'Your early termination request No. TR-7KQM-X2PF has been submitted.',
  },
  expiresAt: 4_102_444_800,
  contract: contractConditionFor(DEMO_CUSTOMERS.anna.customerId, desiredTerminationDate),
  documents: documentConditionFor(DEMO_CUSTOMERS.anna.customerId),
  limit: { count: 5, periodDays: 30 },
};

export async function writeSampleRequest(doc: DynamoDBDocumentClient, names: TableNames): Promise<void> {
  await doc.send(new TransactWriteCommand(buildCreateTransaction(names, SAMPLE_REQUEST, Math.floor(Date.parse(createdAt) / 1000))));
}
