import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCreateTransaction, explainCreateRefusal } from '../../lib/dynamodb/create-transaction';
import { documentConditionChecks } from '../../lib/dynamodb/document-checks';
import { partItems } from '../../lib/dynamodb/write-parts';
import { documentConditionFor, documentsRefusal, USABLE_DOCUMENT_STATUS } from '../../lib/termination/documents';
import { DEMO_DOCUMENTS } from '../../scripts/local/demo-data';
import { SAMPLE_REQUEST } from '../support/sample-request';

/*
 * The documents a create names (docs/decisions/0019-documents.md): the checks its write carries,
 * what a refused one reports, and the one answer for every failure. DynamoDB Local holds the
 * checks to their meaning in tests/integration/documents.test.ts.
 */

const NOW = 1_900_000_000;
const tables = { requests: 'requests', contracts: 'contracts', documents: 'documents' };
const IDS = ['d0c5e1a2-4b6f-4c3d-8e9a-000000000001', 'd0c5e1a2-4b6f-4c3d-8e9a-000000000002', 'd0c5e1a2-4b6f-4c3d-8e9a-000000000003'];
const request = { ...SAMPLE_REQUEST, input: { ...SAMPLE_REQUEST.input, documentIds: IDS } };

describe('the documents checks in the create transaction', () => {
  it('checks each document, in order, for the caller and the usable status, asking nothing back', () => {
    expect(documentConditionChecks('documents', IDS.slice(0, 1), documentConditionFor('customer-anna'))).toEqual([
      {
        TableName: 'documents',
        Key: { documentId: IDS[0] },
        ConditionExpression: 'customerId = :customerId AND #status = :usable',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':customerId': 'customer-anna', ':usable': USABLE_DOCUMENT_STATUS },
      },
    ]);
  });

  it('puts them after the request, one per document, and none when the request names none', () => {
    const write = buildCreateTransaction(tables, request, NOW);
    const names = write.parts.map(({ name }) => name);
    expect(names.slice(names.indexOf('request') + 1, names.indexOf('request') + 1 + IDS.length)).toEqual(IDS.map(() => 'document'));
    expect(write.parts.filter(({ name }) => name === 'document').map(({ at }) => at)).toEqual(IDS.map((_, at) => at));
    const documents = partItems(write, 'document');
    expect(documents.map((item) => item.ConditionCheck?.Key)).toEqual(IDS.map((documentId) => ({ documentId })));
    expect(documents.every((item) => item.ConditionCheck?.TableName === 'documents')).toBe(true);
    const none = buildCreateTransaction(tables, SAMPLE_REQUEST, NOW).input.TransactItems ?? [];
    expect(none.filter((item) => item.ConditionCheck?.TableName === 'documents')).toEqual([]);
  });

  it('reports every document whose check failed, by its place', () => {
    const failed = [{ name: 'document' as const, at: 0 }, { name: 'document' as const, at: 2 }, { name: 'limit' as const }];
    const failure = { part: 'document' as const, failed, item: undefined, readAfter: false };
    expect(explainCreateRefusal(failure, request, NOW)).toEqual({ kind: 'documents-refused', positions: [0, 2] });
  });

  it('lets the slot answer before the documents', () => {
    const holder = { requestNumber: 'TR-ABCD-EFGH', customerId: 'customer-anna' };
    const failure = {
      part: 'slot' as const,
      failed: [{ name: 'slot' as const }, { name: 'document' as const, at: 0 }],
      item: holder,
      readAfter: false,
    };
    expect(explainCreateRefusal(failure, request, NOW)).toMatchObject({ kind: 'slot-taken' });
  });
});

describe('the refusal', () => {
  it('names each document the same way, whatever made it fail', () => {
    expect(documentsRefusal([1, 3]).refusal).toEqual({
      code: 'DOCUMENT_NOT_AVAILABLE',
      problems: [
        { field: 'documentIds[1]', code: 'documentNotAvailable' },
        { field: 'documentIds[3]', code: 'documentNotAvailable' },
      ],
    });
    expect(() => documentsRefusal([])).toThrow(/names no document/);
  });
});

describe('the demo documents', () => {
  it('are the ones docs/local-development.md lists', () => {
    const text = readFileSync('docs/local-development.md', 'utf8');
    const rows = [
      ...text.slice(text.indexOf('Demo documents')).matchAll(/^\| `(customer-\w+)` \| `([0-9a-f-]{36})` \| (\w+) \| ([\w.-]+) \|$/gm),
    ];
    expect(rows.map(([, customerId, documentId, status, fileName]) => ({ customerId, documentId, status, fileName }))).toEqual(
      DEMO_DOCUMENTS.map(({ customerId, documentId, status, fileName }) => ({ customerId, documentId, status, fileName })),
    );
  });
});
