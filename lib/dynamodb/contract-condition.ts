import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ACTIVE_STATUS, LATEST_END_DATE } from '../termination/contract-rules';

type ConditionCheck = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['ConditionCheck']>;

/*
 * The contracts table belongs to another system (docs/decisions/0007-contracts.md); this service only reads it, and only
 * inside its own transaction, so ownership and state are checked at the instant of the write.
 */

/**
 * The ConditionCheck that lets the write go through only for an active contract of this
 * customer whose end date, if any, is not before the desired date. An end date that is not a
 * 10-character string between the desired date and 2999-12-31 fails it, so a malformed one
 * (a number, NULL, "31.12.2045") reaches judgeContract instead of being compared as text.
 * Two comparisons, not BETWEEN: DynamoDB refuses a BETWEEN whose lower bound is above its upper
 * one, which any desired date above the upper bound would make (a 500 any customer could cause).
 */
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
      'attribute_exists(contractId) AND customerId = :customerId AND #status = :active AND ' +
      '(attribute_not_exists(endDate) OR (attribute_type(endDate, :string) AND size(endDate) = :dateLength AND endDate >= :desired AND endDate <= :latest))',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':customerId': customerId,
      ':active': ACTIVE_STATUS,
      ':desired': desiredTerminationDate,
      ':latest': LATEST_END_DATE,
      ':string': 'S',
      ':dateLength': 10,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}
