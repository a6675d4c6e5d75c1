import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DocumentCondition } from '../termination/ports/store';

type ConditionCheck = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['ConditionCheck']>;

/*
 * The documents table belongs to the documents service (docs/decisions/0019-documents.md); this
 * service only checks it, inside the create's own transaction, one ConditionCheck per document
 * named, so ownership and state hold at the instant of the write. A failed check asks nothing
 * back: another customer's document never reaches this service, not even its memory, and the
 * answer is the same whichever part of the condition failed.
 */

/** One ConditionCheck per document, in the order of documentIds: the caller's, and in the usable status. */
export function documentConditionChecks(tableName: string, documentIds: readonly string[], condition: DocumentCondition): ConditionCheck[] {
  return documentIds.map((documentId) => ({
    TableName: tableName,
    Key: { documentId },
    // A missing item has no customerId: the check fails, as for another customer's document.
    ConditionExpression: 'customerId = :customerId AND #status = :usable',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':customerId': condition.customerId, ':usable': condition.status },
  }));
}
