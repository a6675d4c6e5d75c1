import { GetCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';

type ConditionCheck = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['ConditionCheck']>;

/*
 * The contracts table belongs to another system (docs/decisions/0007-contracts.md); this service only reads it, and only
 * inside its own transaction, so ownership and state are checked at the instant of the write.
 */

export interface Contract {
  contractId: string;
  customerId: string;
  status: string;
  endDate?: string;
}

export const ACTIVE_STATUS = 'ACTIVE';

export type ContractVerdict =
  { kind: 'ok' } | { kind: 'not-found' } | { kind: 'access-denied' } | { kind: 'not-active' } | { kind: 'date-after-end'; endDate: string };

/** The ConditionCheck that lets the write go through only for an active contract of this customer. */
export function contractConditionCheck(
  tableName: string,
  contractId: string,
  customerId: string,
  desiredTerminationDate: string,
): ConditionCheck {
  return {
    TableName: tableName,
    Key: { contractId },
    ConditionExpression:
      'attribute_exists(contractId) AND customerId = :customerId AND #status = :active AND (attribute_not_exists(endDate) OR attribute_type(endDate, :null) OR endDate >= :desired)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':customerId': customerId, ':active': ACTIVE_STATUS, ':desired': desiredTerminationDate, ':null': 'NULL' },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * Why the contract refuses the request, in the order a client should learn it: existence, then
 * ownership (so nothing about another customer's contract leaks), then state, then end date.
 */
export function judgeContract(
  contract: Record<string, unknown> | undefined,
  customerId: string,
  desiredTerminationDate: string,
): ContractVerdict {
  if (!contract) return { kind: 'not-found' };
  if (contract['customerId'] !== customerId) return { kind: 'access-denied' };
  if (contract['status'] !== ACTIVE_STATUS) return { kind: 'not-active' };
  const endDate = contract['endDate'];
  if (endDate !== undefined && endDate !== null) {
    if (typeof endDate !== 'string') throw new Error('Contract endDate is not a string');
    if (endDate < desiredTerminationDate) return { kind: 'date-after-end', endDate };
  }
  return { kind: 'ok' };
}

export async function readContractConsistently(
  client: DynamoDBDocumentClient,
  tableName: string,
  contractId: string,
  abortSignal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { contractId }, ConsistentRead: true }), { abortSignal });
  return Item;
}
