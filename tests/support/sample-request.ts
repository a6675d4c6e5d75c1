import { randomUUID } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { buildCreateTransaction } from '../../lib/dynamodb/create-transaction';
import { buildDecisionWrite } from '../../lib/dynamodb/decision-write';
import { buildWithdrawalTransaction } from '../../lib/dynamodb/withdrawal-write';
import { contractConditionFor } from '../../lib/termination/contract-rules';
import { documentConditionFor } from '../../lib/termination/documents';
import { moveTo } from '../../lib/termination/lifecycle';
import { limitConditionFor } from '../../lib/termination/request-limit';
import type { NewRequest } from '../../lib/termination/ports/store';
import type { Decision } from '../../lib/termination/ports/decision';
import type { TableNames } from '../../scripts/local/tables';
import { DEMO_BANK_DETAILS, DEMO_CUSTOMERS } from '../../scripts/local/demo-data';

/*
 * The requests the sample events of events/ are about (decision-*.json name the first,
 * stream-*.json carry both): written by the service's own writes (the create's transaction, a
 * decision's update, a withdrawal's transaction), with fixed ids and times, so the samples can be
 * replayed against fresh tables and the publisher finds in the table what they say.
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
  limit: limitConditionFor({ count: 5, periodDays: 30 }, Date.parse(createdAt) / 1000, Date.parse(createdAt) / 1000),
};

const seconds = (time: string) => Math.floor(Date.parse(time) / 1000);

/**
 * A write of the service, with a token of its own: tokens are account-wide for 10 minutes, and
 * several test files write the samples into tables of their own in one DynamoDB Local.
 */
const withOwnToken = (input: TransactWriteCommandInput): TransactWriteCommandInput => ({ ...input, ClientRequestToken: randomUUID() });

export async function writeSampleRequest(doc: DynamoDBDocumentClient, names: TableNames): Promise<void> {
  await doc.send(new TransactWriteCommand(withOwnToken(buildCreateTransaction(names, SAMPLE_REQUEST, seconds(createdAt)).input)));
}

/** The request stream-withdrawn.json is about: another of Anna's contracts, taken IN_REVIEW, then withdrawn by her. */
export const WITHDRAWN_SAMPLE_ID = '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f02';
export const WITHDRAWN_SAMPLE_CONTRACT_ID = DEMO_CUSTOMERS.anna.contracts.withEndDate;
const withdrawnSampleCreatedAt = '2026-11-23T09:20:00.000Z';
export const WITHDRAWN_SAMPLE: NewRequest = {
  ...SAMPLE_REQUEST,
  requestId: WITHDRAWN_SAMPLE_ID,
  requestNumber: 'TR-7KQM-X2PH',
  contractId: WITHDRAWN_SAMPLE_CONTRACT_ID,
  idempotencyKey: '5f0c2a8e-3b1d-4e6f-9a7c-2d4e6f8a0b1d',
  response: {
    requestId: WITHDRAWN_SAMPLE_ID,
    requestNumber: 'TR-7KQM-X2PH',
    status: 'SUBMITTED',
    createdAt: withdrawnSampleCreatedAt,
    message: 'Your early termination request No. TR-7KQM-X2PH has been submitted.',
  },
};
export const WITHDRAWN_AT = '2026-11-23T11:30:00.000Z';

/** Writes the withdrawn sample's whole life, each step by the write the service makes for it. */
export async function writeWithdrawnSample(doc: DynamoDBDocumentClient, names: TableNames): Promise<void> {
  await doc.send(
    new TransactWriteCommand(withOwnToken(buildCreateTransaction(names, WITHDRAWN_SAMPLE, seconds(withdrawnSampleCreatedAt)).input)),
  );
  const review: Decision = {
    eventId: 'bo-2026-11-23-000188',
    requestId: WITHDRAWN_SAMPLE_ID,
    contractId: WITHDRAWN_SAMPLE_CONTRACT_ID,
    status: 'IN_REVIEW',
    reason: undefined,
    occurredAt: '2026-11-23T10:05:00.000Z',
  };
  const write = buildDecisionWrite(names, review, moveTo('IN_REVIEW'), '2026-11-23T10:05:00.350Z');
  if (write.kind !== 'update') throw new Error('IN_REVIEW is not a final status: its decision is one update');
  await doc.send(new UpdateCommand(write.input));
  const withdrawal = buildWithdrawalTransaction(
    names,
    {
      requestId: WITHDRAWN_SAMPLE_ID,
      contractId: WITHDRAWN_SAMPLE_CONTRACT_ID,
      customerId: WITHDRAWN_SAMPLE.customerId,
      idempotencyKey: '3c9d2f4a-7b1e-4c6d-9a8f-000000000032',
      fingerprint: 'sample-fingerprint',
      response: { requestId: WITHDRAWN_SAMPLE_ID, status: 'WITHDRAWN', withdrawnAt: WITHDRAWN_AT, message: 'Withdrawn.' },
      expiresAt: 4_102_444_800,
      from: moveTo('WITHDRAWN').from,
      // Kept after the withdrawal as the retention says (docs/decisions/0024-retention-by-calendar-year.md), as stream-request-expired.json records.
      retainUntil: seconds(WITHDRAWN_AT) + 1827 * 86_400,
    },
    seconds(WITHDRAWN_AT),
  );
  await doc.send(new TransactWriteCommand(withOwnToken(withdrawal.input)));
}
