import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ContractCondition } from '../termination/ports/store';

type ConditionCheck = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['ConditionCheck']>;

/*
 * The contracts table belongs to another system (docs/decisions/0007-contracts.md); this service only reads it, and only
 * inside its own transaction, so ownership and state are checked at the instant of the write.
 */

/**
 * The ConditionCheck that lets the write go through only for a contract as the condition asks:
 * the customer's, in its status, and with no end date or one that is a 10-character string
 * within the bounds. Anything else fails it, so a malformed end date (a number, NULL,
 * "31.12.2045") reaches the domain's judgement instead of being compared as text. The same rule,
 * stated once for the domain, is meetsCondition (lib/termination/contract-rules.ts);
 * tests/integration/contract-condition.test.ts holds the two to the same verdict.
 * Two comparisons, not BETWEEN: DynamoDB refuses a BETWEEN whose lower bound is above its upper
 * one, which any desired date above the upper bound would make (a 500 any customer could cause).
 */
export function contractConditionCheck(tableName: string, contractId: string, condition: ContractCondition): ConditionCheck {
  return {
    TableName: tableName,
    Key: { contractId },
    ConditionExpression:
      'attribute_exists(contractId) AND customerId = :customerId AND #status = :active AND ' +
      '(attribute_not_exists(endDate) OR (attribute_type(endDate, :string) AND size(endDate) = :dateLength AND endDate >= :desired AND endDate <= :latest))',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':customerId': condition.customerId,
      ':active': condition.status,
      ':desired': condition.earliestEndDate,
      ':latest': condition.latestEndDate,
      ':string': 'S',
      ':dateLength': 10,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}
