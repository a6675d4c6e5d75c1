import { ScanCommand, type DynamoDBDocumentClient, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';

/*
 * Every item a Scan returns, page after page: for the operator's one-off migrations only
 * (migrations.ts, run by `npm run migrate`, docs/deploy.md). No function scans the table.
 */
export async function* scannedItems(
  doc: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey'>,
): AsyncGenerator<Record<string, unknown>> {
  let from: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ ...input, ...(from === undefined ? {} : { ExclusiveStartKey: from }) }));
    yield* page.Items ?? [];
    from = page.LastEvaluatedKey;
  } while (from !== undefined);
}
