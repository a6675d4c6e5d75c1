import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USABLE_DOCUMENT_STATUS } from '../../lib/termination/documents';
import { DEMO_CUSTOMERS, type Document } from '../../scripts/local/demo-data';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler } from '../support/handler';
import { ofKind, useFreshTables, type TestTables } from '../support/local-tables';
import { callsDuring, installSdkRecorder } from '../support/sdk-calls';

/*
 * The documents a create names (docs/decisions/0019-documents.md): each checked inside the
 * create's one transaction against the documents service's table in DynamoDB Local, the real
 * handler answering.
 */

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;
let tables: TestTables;
let uninstall: () => void;

beforeAll(async () => {
  tables = await useFreshTables();
  uninstall = installSdkRecorder();
});
afterAll(() => uninstall());

/** Documents of the customer's own, uploaded and usable unless told otherwise; their ids. */
async function documentsOf(customerId: string, count: number, status = USABLE_DOCUMENT_STATUS): Promise<string[]> {
  const documents: Document[] = Array.from({ length: count }, (_, i) => ({
    documentId: randomUUID(),
    customerId,
    status,
    fileName: `scan-${i + 1}.pdf`,
    uploadedAt: '2026-11-20T10:00:00.000Z',
  }));
  await tables.addDocuments(documents);
  return documents.map((document) => document.documentId);
}

const create = (contractId: string, documentIds: string[], options: { customerId?: string; key?: string } = {}) =>
  callsDuring('create-termination-request', () =>
    callHandler({
      contractId,
      customerId: options.customerId ?? anna.customerId,
      body: validBody({ documentIds }),
      headers: headersWithKey(options.key ?? randomUUID()),
    }),
  );

describe("documentIds: each one of the caller's uploaded, usable documents", () => {
  it("creates a request naming the caller's own usable documents, ten of them, in one DynamoDB call", async () => {
    const contractId = await newContract(tables);
    const documentIds = await documentsOf(anna.customerId, 10);
    const { answer, calls } = await create(contractId, documentIds);
    expect(answer.status).toBe(201);
    expect(calls.map((call) => call.operation)).toEqual(['dynamodb:TransactWriteItems']);
    const checks = calls[0]?.accesses.filter(
      (access) => access.action === 'dynamodb:ConditionCheckItem' && access.resource.kind === 'table',
    );
    expect(checks?.filter((access) => access.resource.kind === 'table' && access.resource.name === tables.names.documents)).toHaveLength(
      10,
    );
    const [request] = ofKind(await tables.contractItems(contractId), 'REQUEST');
    expect(request?.['documentIds']).toEqual(documentIds);
  });

  it.each([
    ['an unknown id', async () => randomUUID()],
    ["another customer's document", async () => (await documentsOf(boris.customerId, 1))[0] ?? ''],
    ["the caller's document still being checked", async () => (await documentsOf(anna.customerId, 1, 'SCANNING'))[0] ?? ''],
    ["the caller's deleted document", async () => (await documentsOf(anna.customerId, 1, 'DELETED'))[0] ?? ''],
  ])('refuses %s with 422 DOCUMENT_NOT_AVAILABLE naming it, in one call, writing nothing', async (_case, documentOf) => {
    const contractId = await newContract(tables);
    const [good = ''] = await documentsOf(anna.customerId, 1);
    const { answer, calls } = await create(contractId, [good, await documentOf()]);
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      errorCode: 'DOCUMENT_NOT_AVAILABLE',
      message: 'Some of the documents cannot be attached: choose among your uploaded documents.',
      correlationId: expect.any(String),
      details: [{ field: 'documentIds[1]', reason: 'is not one of your uploaded documents, or cannot be attached yet' }],
    });
    expect(calls.map((call) => call.operation)).toEqual(['dynamodb:TransactWriteItems']);
    expect(await tables.contractItems(contractId)).toEqual([]);
  });

  it("answers an unknown id and another customer's document alike, byte for byte but the correlation id", async () => {
    const contractId = await newContract(tables);
    const [borisDocument = ''] = await documentsOf(boris.customerId, 1);
    const unknown = (await create(contractId, [randomUUID()])).answer;
    const others = (await create(contractId, [borisDocument])).answer;
    const withoutId = (body: Record<string, unknown>) => ({ ...body, correlationId: undefined });
    expect([unknown.status, others.status]).toEqual([422, 422]);
    expect(withoutId(others.body)).toEqual(withoutId(unknown.body));
  });

  it('names every document that fails, by its place in documentIds', async () => {
    const contractId = await newContract(tables);
    const [first = '', second = ''] = await documentsOf(anna.customerId, 2);
    const { answer } = await create(contractId, [randomUUID(), first, randomUUID(), second]);
    expect(answer.body['details']).toEqual([
      { field: 'documentIds[0]', reason: expect.any(String) },
      { field: 'documentIds[2]', reason: expect.any(String) },
    ]);
  });

  it('refuses the same document twice, in any letter case, as a form problem before any DynamoDB call', async () => {
    const contractId = await newContract(tables);
    const [documentId = ''] = await documentsOf(anna.customerId, 1);
    const { answer, calls } = await create(contractId, [documentId, documentId.toUpperCase()]);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', details: [{ field: 'documentIds[1]' }] });
    expect(calls).toEqual([]);
  });

  it('takes a document id in any letter case as the same document', async () => {
    const contractId = await newContract(tables);
    const [documentId = ''] = await documentsOf(anna.customerId, 1);
    expect((await create(contractId, [documentId.toUpperCase()])).answer.status).toBe(201);
  });

  it('still replays an accepted create with 200 after its document was deleted or changed owner', async () => {
    const contractId = await newContract(tables);
    const [documentId = ''] = await documentsOf(anna.customerId, 1);
    const key = randomUUID();
    const first = (await create(contractId, [documentId], { key })).answer;
    expect(first.status).toBe(201);
    await tables.addDocuments([
      { documentId, customerId: boris.customerId, status: 'DELETED', fileName: 'scan.pdf', uploadedAt: '2026-11-20T10:00:00.000Z' },
    ]);
    const again = (await create(contractId, [documentId], { key })).answer;
    expect(again.status).toBe(200);
    expect(again.raw).toBe(first.raw);
  });

  it('judges the contract and its active request before the documents: 403, 409', async () => {
    const borisContract = await newContract(tables, { customerId: boris.customerId });
    expect((await create(borisContract, [randomUUID()])).answer.body['errorCode']).toBe('CONTRACT_ACCESS_DENIED');
    const contractId = await newContract(tables);
    expect((await create(contractId, [])).answer.status).toBe(201);
    expect((await create(contractId, [randomUUID()])).answer.body['errorCode']).toBe('ACTIVE_REQUEST_ALREADY_EXISTS');
  });

  it("loads the demo customers' documents: Anna's usable ones go through, Boris's and a pending one do not", async () => {
    const contractId = await newContract(tables);
    const demo = anna.documents;
    expect((await create(contractId, [demo.passport, demo.pending, boris.documents.offer])).answer.body['details']).toEqual([
      { field: 'documentIds[1]', reason: expect.any(String) },
      { field: 'documentIds[2]', reason: expect.any(String) },
    ]);
    expect((await create(contractId, [demo.passport, demo.relocation])).answer.status).toBe(201);
  });
});
