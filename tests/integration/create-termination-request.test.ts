import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/observability/logger';
import { DEMO_CUSTOMERS, DEMO_END_DATE } from '../../scripts/local/demo-data';
import type { EventOptions } from '../../scripts/local/api-event';
import { REQUEST_NUMBER_PATTERN } from '../../lib/termination/request-number';
import { bodyWithBytesInName, headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { detailFields } from '../support/error-body';
import { callHandler } from '../support/handler';
import { ofKind, useFreshTables, type TestTables } from '../support/local-tables';
import { ISO_UTC, SERVICE_UUID } from '../support/patterns';

/*
 * The create handler called in-process, against this file's own tables in DynamoDB Local. Each
 * test makes its own contract, so no two share an active-request slot.
 */

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;

let tables: TestTables;

beforeAll(async () => {
  tables = await useFreshTables();
});

describe('201 and idempotent replay', () => {
  it('creates a request, then replays it with 200 and the same body', async () => {
    const contractId = await newContract(tables);
    const key = randomUUID();
    const correlationId = randomUUID();
    const body = validBody();
    const first = await callHandler({ contractId, body, headers: headersWithKey(key, { 'X-Correlation-Id': correlationId }) });

    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      requestId: expect.stringMatching(SERVICE_UUID),
      requestNumber: expect.stringMatching(REQUEST_NUMBER_PATTERN),
      status: 'SUBMITTED',
      createdAt: expect.stringMatching(ISO_UTC),
      message: expect.stringContaining(String(first.body['requestNumber'])),
    });
    expect(first.headers['X-Correlation-Id']).toBe(correlationId);
    expect(first.headers['Location']).toBe(`/dev/api/v1/contracts/${contractId}/termination-requests/${String(first.body['requestId'])}`);
    expect(first.headers['Idempotent-Replayed']).toBeUndefined();

    const again = await callHandler({ contractId, body, headers: headersWithKey(key.toUpperCase()) });
    expect(again.status).toBe(200);
    expect(again.raw).toBe(first.raw);
    expect(again.headers['Idempotent-Replayed']).toBe('true');

    const items = await tables.contractItems(contractId);
    expect(items.map((i) => i['kind']).sort()).toEqual(['ACTIVE_SLOT', 'IDEMPOTENCY', 'REQUEST', 'REQUEST_LIMIT', 'REQUEST_NUMBER']);
    const [request] = ofKind(items, 'REQUEST');
    expect(request).toMatchObject({ customerId: anna.customerId, status: 'SUBMITTED', requestNumber: first.body['requestNumber'] });
  });

  it('replays with the key even when keys in the body come in another order', async () => {
    const contractId = await newContract(tables);
    const key = randomUUID();
    const body = validBody();
    const first = await callHandler({ contractId, body, headers: headersWithKey(key) });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await callHandler({ contractId, rawBody: JSON.stringify(reordered), headers: headersWithKey(key) });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body['requestId']).toBe(first.body['requestId']);
  });

  it('keeps a key per customer: the same key from another customer is unrelated', async () => {
    const annaContract = await newContract(tables);
    const borisContract = await newContract(tables, { customerId: boris.customerId });
    const key = randomUUID();
    const a = await callHandler({ contractId: annaContract, body: validBody(), headers: headersWithKey(key) });
    const b = await callHandler({
      contractId: borisContract,
      customerId: boris.customerId,
      body: validBody(),
      headers: headersWithKey(key),
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body['requestId']).not.toBe(a.body['requestId']);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body, creating nothing', async () => {
    const contractId = await newContract(tables);
    const key = randomUUID();
    await callHandler({ contractId, body: validBody(), headers: headersWithKey(key) });
    const before = await tables.requestItems();
    const reused = await callHandler({ contractId, body: validBody({ comment: 'changed my mind' }), headers: headersWithKey(key) });
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ errorCode: 'IDEMPOTENCY_KEY_REUSED', details: [{ field: 'Idempotency-Key' }] });
    expect((await tables.requestItems()).length).toBe(before.length);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key on another contract', async () => {
    const first = await newContract(tables);
    const second = await newContract(tables);
    const key = randomUUID();
    const body = validBody();
    expect((await callHandler({ contractId: first, body, headers: headersWithKey(key) })).status).toBe(201);
    const reused = await callHandler({ contractId: second, body, headers: headersWithKey(key) });
    expect(reused.body['errorCode']).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await tables.contractItems(second)).toEqual([]);
  });

  it('replays with 200 after the contract was closed', async () => {
    const contractId = await newContract(tables);
    const key = randomUUID();
    const body = validBody();
    const first = await callHandler({ contractId, body, headers: headersWithKey(key) });
    await tables.addContracts([{ contractId, customerId: anna.customerId, status: 'CLOSED' }]);
    const again = await callHandler({ contractId, body, headers: headersWithKey(key) });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });
});

describe('409: one active request per contract', () => {
  it('refuses a second request with another key and names the existing number', async () => {
    const contractId = await newContract(tables);
    const first = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
    const second = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ errorCode: 'ACTIVE_REQUEST_ALREADY_EXISTS', details: [{ field: 'contractId' }] });
    expect(second.body['message']).toContain(String(first.body['requestNumber']));
    expect(ofKind(await tables.contractItems(contractId), 'REQUEST')).toHaveLength(1);
  });
});

describe('contract rules', () => {
  it('404 CONTRACT_NOT_FOUND for an unknown contract', async () => {
    const answer = await callHandler({ contractId: randomUUID(), body: validBody(), headers: headersWithKey() });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ errorCode: 'CONTRACT_NOT_FOUND', details: [{ field: 'contractId' }] });
  });

  it("403 CONTRACT_ACCESS_DENIED for another customer's contract, with no contract data", async () => {
    const answer = await callHandler({ contractId: boris.contracts.withEndDate, body: validBody(), headers: headersWithKey() });
    expect(answer.status).toBe(403);
    expect(answer.body['errorCode']).toBe('CONTRACT_ACCESS_DENIED');
    expect(JSON.stringify(answer.body)).not.toMatch(new RegExp(`${boris.customerId}|${DEMO_END_DATE}|ACTIVE`));
  });

  it('422 CONTRACT_NOT_ACTIVE for a closed contract', async () => {
    const answer = await callHandler({ contractId: anna.contracts.closed, body: validBody(), headers: headersWithKey() });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ errorCode: 'CONTRACT_NOT_ACTIVE', details: [{ field: 'contractId' }] });
  });

  it('422 TERMINATION_DATE_AFTER_CONTRACT_END after the end date, 201 on it', async () => {
    const contractId = await newContract(tables, { endDate: '2040-03-31' });
    const late = await callHandler({ contractId, body: validBody({ desiredTerminationDate: '2040-04-01' }), headers: headersWithKey() });
    expect(late.status).toBe(422);
    expect(late.body).toMatchObject({ errorCode: 'TERMINATION_DATE_AFTER_CONTRACT_END', details: [{ field: 'desiredTerminationDate' }] });
    const onTheDay = await callHandler({
      contractId,
      body: validBody({ desiredTerminationDate: '2040-03-31' }),
      headers: headersWithKey(),
    });
    expect(onTheDay.status).toBe(201);
  });

  it.each([
    ['NULL', null],
    ['a number', 20451231],
    ['"31.12.2045" (compared as text it would pass)', '31.12.2045'],
    ['"2045-02-30" (no such day)', '2045-02-30'],
    ['"3000-01-01" (after the latest end date judged)', '3000-01-01'],
  ])('never compares an endDate stored as %s: 500, the contract named in the log, nothing written', async (_name, endDate) => {
    const contractId = randomUUID();
    await tables.doc.send(
      new PutCommand({ TableName: tables.names.contracts, Item: { contractId, customerId: anna.customerId, status: 'ACTIVE', endDate } }),
    );
    const lines: string[] = [];
    // Powertools writes ERROR lines to stderr.
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    logger.setLogLevel('ERROR');
    const answer = await callHandler({ contractId, body: validBody(), headers: headersWithKey() }).finally(() => {
      spy.mockRestore();
      logger.setLogLevel('SILENT');
    });
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ errorCode: 'INTERNAL_ERROR', details: [] });
    expect(answer.raw).not.toContain(String(endDate));
    expect(lines.join('')).toContain(`Malformed contract ${contractId}`);
    expect(await tables.contractItems(contractId)).toEqual([]);
  });

  it('refuses, as malformed, a contract whose customerId is not a string', async () => {
    const contractId = randomUUID();
    await tables.doc.send(new PutCommand({ TableName: tables.names.contracts, Item: { contractId, customerId: 42, status: 'ACTIVE' } }));
    expect((await callHandler({ contractId, body: validBody(), headers: headersWithKey() })).status).toBe(500);
  });

  it('refuses, as malformed, a contract whose status is not a string', async () => {
    const contractId = randomUUID();
    await tables.doc.send(
      new PutCommand({ TableName: tables.names.contracts, Item: { contractId, customerId: anna.customerId, status: ['ACTIVE'] } }),
    );
    expect((await callHandler({ contractId, body: validBody(), headers: headersWithKey() })).status).toBe(500);
  });

  it('takes the contract id in any case as the same contract: one lookup, one slot', async () => {
    const contractId = await newContract(tables);
    const first = await callHandler({ contractId: contractId.toUpperCase(), body: validBody(), headers: headersWithKey() });
    expect(first.status).toBe(201);
    expect(first.headers['Location']).toContain(first.body['requestId']);
    const again = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
    expect(again.status).toBe(409);
    expect(again.body['message']).toContain(first.body['requestNumber']);
  });

  it('gives the same answer to a key whose document ids differ only in case', async () => {
    const contractId = await newContract(tables);
    const key = randomUUID();
    const documentId = anna.documents.passport;
    const first = await callHandler({ contractId, body: validBody({ documentIds: [documentId] }), headers: headersWithKey(key) });
    const again = await callHandler({
      contractId,
      body: validBody({ documentIds: [documentId.toUpperCase()] }),
      headers: headersWithKey(key),
    });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.raw).toBe(first.raw);
  });

  it('leaves the key free after a refusal', async () => {
    const contractId = await newContract(tables, { status: 'SUSPENDED' });
    const key = randomUUID();
    expect((await callHandler({ contractId, body: validBody(), headers: headersWithKey(key) })).status).toBe(422);
    await tables.addContracts([{ contractId, customerId: anna.customerId, status: 'ACTIVE' }]);
    expect((await callHandler({ contractId, body: validBody(), headers: headersWithKey(key) })).status).toBe(201);
  });
});

describe('dates far ahead', () => {
  it.each([
    ['no end date', undefined, 201],
    ['an end date before it', '2999-12-31', 422],
  ])('answers 3000-01-01 on a contract with %s as any other date, never 500', async (_name, endDate, status) => {
    const contractId = await newContract(tables, endDate ? { endDate } : {});
    const answer = await callHandler({ contractId, body: validBody({ desiredTerminationDate: '3000-01-01' }), headers: headersWithKey() });
    expect(answer.status).toBe(status);
  });

  const kinds = ['unknown', 'other-customer', 'closed', 'no-end-date', 'end-date'] as const;
  const day = (date: Date) => date.toISOString().slice(0, 10);
  const futureDate = (max: string) =>
    fc.date({ min: new Date(Date.now() + 3 * 86_400_000), max: new Date(`${max}T00:00:00Z`), noInvalidDate: true }).map(day);

  it('answers every valid future date with 201, 403, 404 or 422 by the contract rules alone', async () => {
    await fc.assert(
      // Contract end dates stop at 2999-12-31, the latest the service judges (docs/decisions/0007-contracts.md).
      fc.asyncProperty(fc.constantFrom(...kinds), futureDate('9999-12-31'), futureDate('2999-12-31'), async (kind, desired, endDate) => {
        const contractId =
          kind === 'unknown'
            ? randomUUID()
            : await newContract(tables, {
                ...(kind === 'other-customer' ? { customerId: boris.customerId } : {}),
                ...(kind === 'closed' ? { status: 'CLOSED' } : {}),
                ...(kind === 'end-date' ? { endDate } : {}),
              });
        const expected =
          kind === 'unknown'
            ? 404
            : kind === 'other-customer'
              ? 403
              : kind === 'closed' || (kind === 'end-date' && endDate < desired)
                ? 422
                : 201;
        const answer = await callHandler({ contractId, body: validBody({ desiredTerminationDate: desired }), headers: headersWithKey() });
        expect(answer.status).toBe(expected);
      }),
      { numRuns: 60 },
    );
  });
});

describe('business rules without stored data', () => {
  it('422 BANK_ACCOUNT_KEY_MISMATCH when one digit of the account changes', async () => {
    const answer = await callHandler({
      contractId: await newContract(tables),
      body: validBody({ bankDetails: { bik: '044525225', accountNumber: '40817810700000000002', recipientName: 'A' } }),
      headers: headersWithKey(),
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ errorCode: 'BANK_ACCOUNT_KEY_MISMATCH', details: [{ field: 'bankDetails.accountNumber' }] });
  });

  it.each(['   ', '!!! ...', '\u2764\uFE0F'])(
    '422 COMMENT_REQUIRED for reason OTHER with a comment of no letter or digit: %j',
    async (comment) => {
      const answer = await callHandler({
        contractId: await newContract(tables),
        body: validBody({ reasonCode: 'OTHER', comment }),
        headers: headersWithKey(),
      });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ errorCode: 'COMMENT_REQUIRED', details: [{ field: 'comment' }] });
    },
  );

  it('takes any letter or digit as a reason for OTHER', async () => {
    const answer = await callHandler({
      contractId: await newContract(tables),
      body: validBody({ reasonCode: 'OTHER', comment: '½ ставки' }),
      headers: headersWithKey(),
    });
    expect(answer.status).toBe(201);
  });
});

describe('400 and 401', () => {
  it('lists every problem of the body, with paths as the client wrote them', async () => {
    const answer = await callHandler({
      contractId: await newContract(tables),
      body: {
        reasonCode: 'BORED',
        desiredTerminationDate: '2026-02-30',
        bankDetails: { bik: '12345', accountNumber: 4081781070, recipientName: '' },
        comment: 'x'.repeat(1001),
        documentIds: ['not-a-uuid', randomUUID()],
        customerId: 'customer-boris',
        extra: true,
      },
      headers: headersWithKey(),
    });
    expect(answer.status).toBe(400);
    expect(answer.body['errorCode']).toBe('VALIDATION_ERROR');
    const fields = detailFields(answer.body).sort();
    expect(fields).toEqual(
      [
        'bankDetails.accountNumber',
        'bankDetails.bik',
        'bankDetails.recipientName',
        'comment',
        'customerId',
        'desiredTerminationDate',
        'documentIds[0]',
        'extra',
        'reasonCode',
      ].sort(),
    );
  });

  it('refuses customerId anywhere in the body with its own reason', async () => {
    const answer = await callHandler({
      contractId: await newContract(tables),
      body: validBody({ bankDetails: { customerId: 'x' } }),
      headers: headersWithKey(),
    });
    expect(answer.status).toBe(400);
    expect(answer.body['details']).toContainEqual({ field: 'bankDetails.customerId', reason: expect.stringContaining('must not be sent') });
  });

  it('answers 400 for a deeply nested body, never 500', async () => {
    const rawBody = `{"x":${'['.repeat(4000)}${']'.repeat(4000)}}`;
    const answer = await callHandler({ contractId: await newContract(tables), rawBody, headers: headersWithKey() });
    expect(answer.status).toBe(400);
    expect(answer.body['errorCode']).toBe('VALIDATION_ERROR');
  });

  it('answers 400 for a past date before a 422 rule when the key is new', async () => {
    const body = validBody({
      desiredTerminationDate: '2020-01-01',
      bankDetails: { bik: '044525225', accountNumber: '40817810700000000002', recipientName: 'A' },
    });
    const answer = await callHandler({ contractId: await newContract(tables), body, headers: headersWithKey() });
    expect(answer.status).toBe(400);
    expect(detailFields(answer.body)).toEqual(['desiredTerminationDate']);
  });

  it('answers IDEMPOTENCY_KEY_REUSED for a used key with another body, whatever rule that body breaks', async () => {
    const contractId = await newContract(tables);
    const key = randomUUID();
    expect((await callHandler({ contractId, body: validBody(), headers: headersWithKey(key) })).status).toBe(201);
    const answer = await callHandler({ contractId, body: validBody({ reasonCode: 'OTHER', comment: '' }), headers: headersWithKey(key) });
    expect(answer.body['errorCode']).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses a date before today in the business time zone', async () => {
    const answer = await callHandler({
      contractId: await newContract(tables),
      body: validBody({ desiredTerminationDate: '2020-01-01' }),
      headers: headersWithKey(),
    });
    expect(answer.status).toBe(400);
    expect(answer.body['details']).toEqual([{ field: 'desiredTerminationDate', reason: expect.stringContaining('earlier than today') }]);
  });

  it('400 IDEMPOTENCY_KEY_MISSING without the header, VALIDATION_ERROR when it is not a UUID', async () => {
    const contractId = await newContract(tables);
    const missing = await callHandler({ contractId, body: validBody() });
    expect(missing.status).toBe(400);
    expect(missing.body['errorCode']).toBe('IDEMPOTENCY_KEY_MISSING');
    const notUuid = await callHandler({ contractId, body: validBody(), headers: { 'Idempotency-Key': 'abc' } });
    expect(notUuid.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', details: [{ field: 'Idempotency-Key' }] });
  });

  it('refuses a contractId or X-Correlation-Id that is not a UUID, answering with a fresh correlation id', async () => {
    const answer = await callHandler({
      contractId: 'contract-1',
      body: validBody(),
      headers: headersWithKey(undefined, { 'x-correlation-id': 'nope' }),
    });
    expect(answer.status).toBe(400);
    expect(detailFields(answer.body).sort()).toEqual(['X-Correlation-Id', 'contractId']);
    expect(answer.body['correlationId']).toMatch(SERVICE_UUID);
    expect(answer.headers['X-Correlation-Id']).toBe(answer.body['correlationId']);
  });

  it.each([
    ['not JSON', { rawBody: '{"reasonCode":' }],
    ['a JSON array', { rawBody: '[]' }],
    ['JSON null', { rawBody: 'null' }],
    ['no body', { rawBody: null }],
    ['text/plain', { body: validBody(), headers: headersWithKey(undefined, { 'Content-Type': 'text/plain' }) }],
    ['over 16 KiB', { body: validBody({ comment: 'x'.repeat(17 * 1024) }) }],
    ['invalid UTF-8', { rawBody: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]).toString('base64'), isBase64Encoded: true }],
    [
      'a name with the bytes FF FE, base64-encoded',
      { rawBody: bodyWithBytesInName([0xff, 0xfe]).toString('base64'), isBase64Encoded: true },
    ],
    // What the gateway hands over for those bytes in a body it passes as text.
    ['a name with the bytes FF FE, decoded by the gateway', { rawBody: bodyWithBytesInName([0xff, 0xfe]).toString('utf8') }],
    [
      'U+FFFD written as such, base64-encoded',
      { rawBody: bodyWithBytesInName([0xef, 0xbf, 0xbd]).toString('base64'), isBase64Encoded: true },
    ],
    ['a lone surrogate in a text body', { rawBody: JSON.stringify(validBody({ comment: 'x' })).replace('"x"', '"\ud800"') }],
  ] satisfies [string, EventOptions][])('400 MALFORMED_REQUEST for %s', async (_name, options) => {
    const answer = await callHandler({ contractId: await newContract(tables), headers: headersWithKey(), ...options });
    expect(answer.status).toBe(400);
    expect(answer.body['errorCode']).toBe('MALFORMED_REQUEST');
  });

  it.each([
    ['text/plain', 'must be application/json'],
    ['application/json; charset=latin1', 'must say charset=utf-8 or no charset: the body is JSON, and JSON is UTF-8'],
    ['application/json; charset=utf-16', 'must say charset=utf-8 or no charset: the body is JSON, and JSON is UTF-8'],
  ])('says what is wrong with a Content-Type of %s', async (contentType, reason) => {
    const answer = await callHandler({
      contractId: await newContract(tables),
      body: validBody(),
      headers: headersWithKey(undefined, { 'Content-Type': contentType }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errorCode: 'MALFORMED_REQUEST', details: [{ field: 'Content-Type', reason }] });
  });

  it('takes application/json with charset=utf-8, in any letter case', async () => {
    const answer = await callHandler({
      contractId: await newContract(tables),
      body: validBody(),
      headers: headersWithKey(undefined, { 'Content-Type': 'Application/JSON; Charset="UTF-8"' }),
    });
    expect(answer.status).toBe(201);
  });

  it('takes U+FFFD written as the JSON escape, and stores it as the client meant', async () => {
    const answer = await callHandler({
      contractId: await newContract(tables),
      headers: headersWithKey(),
      rawBody: JSON.stringify(validBody({ comment: 'x' })).replace('"x"', '"\\ufffd"'),
    });
    expect(answer.status).toBe(201);
  });

  it('401 UNAUTHORIZED when the authorizer context has no customerId', async () => {
    const answer = await callHandler({
      contractId: await newContract(tables),
      customerId: null,
      body: validBody(),
      headers: headersWithKey(),
    });
    expect(answer.status).toBe(401);
    expect(answer.body['errorCode']).toBe('UNAUTHORIZED');
  });

  it('never takes the customer from the body, query or headers', async () => {
    const contractId = await newContract(tables, { customerId: boris.customerId });
    const answer = await callHandler({
      contractId,
      body: validBody(),
      headers: headersWithKey(undefined, { 'X-Customer-Id': boris.customerId, customerId: boris.customerId }),
    });
    expect(answer.status).toBe(403);
  });
});

describe('texts and correlation', () => {
  it('answers in Russian when Accept-Language prefers ru', async () => {
    const answer = await callHandler({
      contractId: randomUUID(),
      body: validBody(),
      headers: headersWithKey(undefined, { 'Accept-Language': 'ru-RU,ru;q=0.9,en;q=0.5' }),
    });
    expect(answer.body['message']).toBe('Договор не найден.');
    const created = await callHandler({
      contractId: await newContract(tables),
      body: validBody(),
      headers: headersWithKey(undefined, { 'Accept-Language': 'ru' }),
    });
    expect(created.body['message']).toMatch(/^Ваша заявка .* принята\.$/);
  });

  it('makes a correlation id when none is sent and uses it in body and header', async () => {
    const answer = await callHandler({ contractId: randomUUID(), body: validBody(), headers: headersWithKey() });
    expect(answer.body['correlationId']).toMatch(SERVICE_UUID);
    expect(answer.headers['X-Correlation-Id']).toBe(answer.body['correlationId']);
  });
});

describe('concurrency', () => {
  it('20 parallel calls with one key create exactly one request, all answering with it', async () => {
    const contractId = await newContract(tables);
    const key = randomUUID();
    const body = validBody();
    const answers = await Promise.all(Array.from({ length: 20 }, () => callHandler({ contractId, body, headers: headersWithKey(key) })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
    expect(new Set(answers.map((a) => a.body['requestId'])).size).toBe(1);
    expect(ofKind(await tables.contractItems(contractId), 'REQUEST')).toHaveLength(1);
  });

  it('20 parallel calls with different keys on one contract give one 201 and nineteen 409s', async () => {
    const contractId = await newContract(tables);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => callHandler({ contractId, body: validBody(), headers: headersWithKey() })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
    const items = await tables.contractItems(contractId);
    expect(ofKind(items, 'REQUEST')).toHaveLength(1);
    expect(ofKind(items, 'IDEMPOTENCY')).toHaveLength(1);
  });
});
