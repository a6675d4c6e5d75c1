import { describe, expect, it } from 'vitest';
import { REASON_CODES } from '../../lib/api-model/schemas';
import type { Problem } from '../../lib/api-model/problems';
import { isTerminationRequest, isUuid, validateTerminationInput } from '../../lib/api-model/validator';
import { bankDetails, validBody } from '../support/bodies';

/** The n-th of a row of distinct, valid UUIDs. */
const uuid = (n: number) => `2f1e0d9c-8b7a-4c6d-9e5f-${String(n).padStart(12, '0')}`;

function withoutKey(body: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));
}

/** The details of a refused body; [] when the body is accepted. */
function problems(body: unknown): Problem[] {
  const result = validateTerminationInput(body);
  return result.ok ? [] : result.problems;
}

function accepted(body: unknown): boolean {
  return validateTerminationInput(body).ok;
}

function fields(body: unknown): string[] {
  return problems(body).map((d) => d.field);
}

describe('validateTerminationInput: valid bodies', () => {
  it('accepts a full valid body and returns it as the input', () => {
    const body = validBody();
    const result = validateTerminationInput(body);
    expect(result).toEqual({ ok: true, input: body });
  });

  it('accepts a body with only the required fields', () => {
    expect(problems(withoutKey(withoutKey(validBody(), 'comment'), 'documentIds'))).toEqual([]);
  });

  it.each(REASON_CODES)('accepts reasonCode %s', (reasonCode) => {
    expect(accepted(validBody({ reasonCode }))).toBe(true);
  });

  it('accepts an empty comment and an empty documentIds array', () => {
    expect(accepted(validBody({ comment: '', documentIds: [] }))).toBe(true);
  });

  it('accepts upper-case UUIDs and a leap day', () => {
    expect(accepted(validBody({ documentIds: [uuid(1).toUpperCase()], desiredTerminationDate: '2028-02-29' }))).toBe(true);
  });

  it('accepts a recipient name with inner spaces, Cyrillic, quotes and hyphens', () => {
    expect(accepted(validBody({ bankDetails: bankDetails({ recipientName: "ООО «Ромашка-Плюс» / Anne-Marie O'Neil" }) }))).toBe(true);
  });
});

describe('validateTerminationInput: required and structural problems', () => {
  it.each(['reasonCode', 'desiredTerminationDate', 'bankDetails'])('requires %s', (key) => {
    expect(problems(withoutKey(validBody(), key))).toEqual([{ field: key, code: 'required' }]);
  });

  it.each(['bik', 'accountNumber', 'recipientName'])('requires bankDetails.%s', (key) => {
    expect(problems(validBody({ bankDetails: withoutKey(bankDetails(), key) }))).toEqual([
      { field: `bankDetails.${key}`, code: 'required' },
    ]);
  });

  it('lists every missing field of an empty body once', () => {
    expect(problems({})).toEqual([
      { field: 'reasonCode', code: 'required' },
      { field: 'desiredTerminationDate', code: 'required' },
      { field: 'bankDetails', code: 'required' },
    ]);
  });

  it.each([
    ['null', null],
    ['an array', []],
    ['a string', 'body'],
    ['a number', 42],
  ])('refuses %s as the body', (_name, body) => {
    expect(accepted(body)).toBe(false);
    expect(problems(body).length).toBeGreaterThan(0);
  });

  it('refuses bankDetails that is not an object', () => {
    expect(problems(validBody({ bankDetails: 'x' }))).toEqual([{ field: 'bankDetails', code: 'mustBeObject' }]);
    expect(problems(validBody({ bankDetails: [] }))).toEqual([{ field: 'bankDetails', code: 'mustBeObject' }]);
  });

  it('refuses documentIds that is not an array', () => {
    expect(problems(validBody({ documentIds: uuid(1) }))).toEqual([{ field: 'documentIds', code: 'mustBeArray' }]);
  });

  it('lists every problem of a body with many, each field once, with client-style paths', () => {
    const details = problems({
      reasonCode: 'BORED',
      desiredTerminationDate: '2026-02-30',
      bankDetails: { bik: '04452522', accountNumber: '4081781070000000000A', recipientName: '   ' },
      comment: 'x'.repeat(1001),
      documentIds: [uuid(1), uuid(2), uuid(3), 'not-a-uuid'],
      extra: true,
    });
    expect(details).toEqual(
      expect.arrayContaining([
        { field: 'reasonCode', code: 'notInDictionary', allowed: REASON_CODES },
        { field: 'desiredTerminationDate', code: 'date' },
        { field: 'bankDetails.bik', code: 'digits', limit: 9 },
        { field: 'bankDetails.accountNumber', code: 'digits', limit: 20 },
        { field: 'bankDetails.recipientName', code: 'recipientName' },
        { field: 'comment', code: 'maxLength', limit: 1000 },
        { field: 'documentIds[3]', code: 'mustBeUuid' },
        { field: 'extra', code: 'unknownField' },
      ]),
    );
    expect(details).toHaveLength(8);
    const fieldNames = details.map((d) => d.field);
    expect(new Set(fieldNames).size).toBe(fieldNames.length);
  });

  it('never lists a field twice even when several rules fail on it', () => {
    const body = validBody({
      desiredTerminationDate: '2026-2-3',
      bankDetails: bankDetails({ recipientName: '\u0007' + 'a'.repeat(300) }),
    });
    expect(problems(body)).toEqual([
      { field: 'desiredTerminationDate', code: 'date' },
      { field: 'bankDetails.recipientName', code: 'recipientName' },
    ]);
  });
});

describe('validateTerminationInput: customerId', () => {
  it('refuses customerId at the top level with the "must not be sent" reason, once', () => {
    expect(problems(validBody({ customerId: 'c-1' }))).toEqual([{ field: 'customerId', code: 'customerIdForbidden' }]);
  });

  it('refuses customerId inside bankDetails with the same reason', () => {
    expect(problems(validBody({ bankDetails: bankDetails({ customerId: 'c-1' }) }))).toEqual([
      { field: 'bankDetails.customerId', code: 'customerIdForbidden' },
    ]);
  });

  it('refuses customerId even when its value is empty or null', () => {
    expect(problems(validBody({ customerId: null }))).toEqual([{ field: 'customerId', code: 'customerIdForbidden' }]);
    expect(problems(validBody({ customerId: '' }))).toEqual([{ field: 'customerId', code: 'customerIdForbidden' }]);
  });

  it('reports customerId both places and other problems too', () => {
    const details = problems(validBody({ customerId: 'a', reasonCode: 'X', bankDetails: bankDetails({ customerId: 'b' }) }));
    expect(details).toEqual(
      expect.arrayContaining([
        { field: 'customerId', code: 'customerIdForbidden' },
        { field: 'bankDetails.customerId', code: 'customerIdForbidden' },
        { field: 'reasonCode', code: 'notInDictionary', allowed: REASON_CODES },
      ]),
    );
    expect(details).toHaveLength(3);
  });
});

describe('validateTerminationInput: desiredTerminationDate', () => {
  it.each([
    '2026-02-30',
    '2027-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-04-31',
    '2026-2-3',
    '2026-02-3',
    '26-02-03',
    '2026/02/03',
    '2026-02-03T00:00:00Z',
    ' 2026-02-03',
    '2026-02-03 ',
    '',
    '２０２６-02-03',
    '2026-02-03\n',
  ])('refuses %j', (date) => {
    expect(problems(validBody({ desiredTerminationDate: date }))).toEqual([{ field: 'desiredTerminationDate', code: 'date' }]);
  });

  it.each(['2026-02-28', '2028-02-29', '2026-12-31', '2026-01-01'])('accepts %s (the past is checked elsewhere)', (date) => {
    expect(accepted(validBody({ desiredTerminationDate: date }))).toBe(true);
  });
});

describe('validateTerminationInput: bankDetails digits', () => {
  it.each(['04452522', '0445252250', '04452522a', '04452522 ', '０44525225', '٠٤٤٥٢٥٢٢٥', ''])('refuses bik %j', (bik) => {
    expect(problems(validBody({ bankDetails: bankDetails({ bik }) }))).toEqual([{ field: 'bankDetails.bik', code: 'digits', limit: 9 }]);
  });

  it.each(['4081781070000000000', '408178107000000000012', '4081781070000000000-', '40817810700000000001\n'])(
    'refuses accountNumber %j',
    (accountNumber) => {
      expect(problems(validBody({ bankDetails: bankDetails({ accountNumber }) }))).toEqual([
        { field: 'bankDetails.accountNumber', code: 'digits', limit: 20 },
      ]);
    },
  );

  it('does not check the control key (that is a 422 business rule)', () => {
    expect(accepted(validBody({ bankDetails: bankDetails({ accountNumber: '40817810700000000002' }) }))).toBe(true);
  });
});

describe('validateTerminationInput: recipientName', () => {
  const refused = (recipientName: unknown) => problems(validBody({ bankDetails: bankDetails({ recipientName }) }));

  it.each([
    ['empty', ''],
    ['a space', ' '],
    ['spaces and tabs', ' \t '],
    ['a non-breaking space', '\u00a0'],
    ['an ideographic space', '\u3000'],
    ['a newline', 'Ivan\nPetrov'],
    ['a tab inside', 'Ivan\tPetrov'],
    ['NUL', 'Ivan\u0000'],
    ['DEL', 'Ivan\u007f'],
    ['a C1 control', 'Ivan\u0085Petrov'],
    ['an escape', '\u001b[31mIvan'],
  ])('refuses %s', (_name, recipientName) => {
    expect(refused(recipientName)).toEqual([{ field: 'bankDetails.recipientName', code: 'recipientName' }]);
  });

  it('counts code points: a letter and 254 emoji is 255, accepted; one more emoji is refused', () => {
    const name255 = `A${'😀'.repeat(254)}`;
    expect(name255.length).toBe(509);
    expect(accepted(validBody({ bankDetails: bankDetails({ recipientName: name255 }) }))).toBe(true);
    expect(refused(`${name255}😀`)).toEqual([{ field: 'bankDetails.recipientName', code: 'recipientName' }]);
  });

  it.each([
    ['a zero-width space alone', '\u200b'],
    ['a Hangul filler alone (a letter that renders as nothing)', '\u3164'],
    ['a bidi override', 'Anna\u202eavonavI'],
    ['a line separator', 'Anna\u2028Ivanova'],
    ['an unpaired surrogate', 'Anna\ud800'],
    ['a private-use character', 'Anna\ue000'],
    ['a zero-width joiner inside', 'An\u200dna'],
    ['digits and no letter', '12345'],
    ['punctuation and no letter', '-- .'],
  ])('refuses a recipientName with %s', (_name, recipientName) => {
    expect(refused(recipientName)).toEqual([{ field: 'bankDetails.recipientName', code: 'recipientName' }]);
  });

  it.each(['Anna Ivanova', 'Иванова Анна', "O'Brien-Smith", 'Anna\u00a0Ivanova', 'Ann\u0308a', '李小龙', 'ООО «Ромашка» 2'])(
    'accepts the recipientName %j',
    (recipientName) => {
      expect(accepted(validBody({ bankDetails: bankDetails({ recipientName }) }))).toBe(true);
    },
  );

  it('accepts 255 ASCII characters and refuses 256', () => {
    expect(accepted(validBody({ bankDetails: bankDetails({ recipientName: 'a'.repeat(255) }) }))).toBe(true);
    expect(refused('a'.repeat(256))).toEqual([{ field: 'bankDetails.recipientName', code: 'recipientName' }]);
  });

  it('accepts a single character', () => {
    expect(accepted(validBody({ bankDetails: bankDetails({ recipientName: 'Я' }) }))).toBe(true);
  });
});

describe('validateTerminationInput: comment', () => {
  it('accepts 1000 code points written as emoji and refuses 1001', () => {
    const comment = '🏦'.repeat(1000);
    expect(comment.length).toBe(2000);
    expect(accepted(validBody({ comment }))).toBe(true);
    expect(problems(validBody({ comment: `${comment}🏦` }))).toEqual([{ field: 'comment', code: 'maxLength', limit: 1000 }]);
  });

  it('counts combining marks as code points: 500 × (e + U+0301) is 1000, one more mark is 1001', () => {
    const comment = 'e\u0301'.repeat(500);
    expect(Array.from(comment)).toHaveLength(1000);
    expect(accepted(validBody({ comment }))).toBe(true);
    expect(problems(validBody({ comment: `${comment}\u0301` }))).toEqual([{ field: 'comment', code: 'maxLength', limit: 1000 }]);
  });

  it('accepts 1000 ASCII characters and refuses 1001', () => {
    expect(accepted(validBody({ comment: 'a'.repeat(1000) }))).toBe(true);
    expect(problems(validBody({ comment: 'a'.repeat(1001) }))).toEqual([{ field: 'comment', code: 'maxLength', limit: 1000 }]);
  });
});

describe('validateTerminationInput: documentIds', () => {
  const ids = (count: number) => Array.from({ length: count }, (_, i) => uuid(i + 1));

  it('accepts 10 documentIds and refuses 11', () => {
    expect(accepted(validBody({ documentIds: ids(10) }))).toBe(true);
    expect(problems(validBody({ documentIds: ids(11) }))).toEqual([{ field: 'documentIds', code: 'maxItems', limit: 10 }]);
  });

  it('names every repeated documentId, comparing UUIDs case-insensitively', () => {
    expect(problems(validBody({ documentIds: [uuid(1), uuid(2), uuid(1)] }))).toEqual([{ field: 'documentIds[2]', code: 'duplicate' }]);
    expect(fields(validBody({ documentIds: [uuid(1), uuid(2), uuid(1), uuid(2)] }))).toEqual(['documentIds[2]', 'documentIds[3]']);
    expect(fields(validBody({ documentIds: [uuid(1), uuid(1).toUpperCase()] }))).toEqual(['documentIds[1]']);
  });

  it('refuses a UUID with a urn:uuid: prefix, in documentIds and in isUuid', () => {
    expect(fields(validBody({ documentIds: [`urn:uuid:${uuid(1)}`] }))).toEqual(['documentIds[0]']);
    expect(isUuid(`urn:uuid:${uuid(1)}`)).toBe(false);
  });

  it('names an unknown all-digit key as a field, not an index', () => {
    expect(fields({ ...validBody(), '123': 1 })).toEqual(['123']);
  });

  it('names the bad item by index', () => {
    expect(problems(validBody({ documentIds: [uuid(1), uuid(2), uuid(3), 'nope'] }))).toEqual([
      { field: 'documentIds[3]', code: 'mustBeUuid' },
    ]);
  });

  it.each([
    ['a number', 7],
    ['null', null],
    ['an object', { id: uuid(1) }],
    ['a UUID without dashes', uuid(1).replace(/-/g, '')],
    ['a UUID with braces', `{${uuid(1)}}`],
    ['an empty string', ''],
  ])('refuses %s as an item', (_name, item) => {
    expect(problems(validBody({ documentIds: [uuid(1), item] }))).toEqual([{ field: 'documentIds[1]', code: 'mustBeUuid' }]);
  });
});

describe('validateTerminationInput: unknown fields and types', () => {
  it('refuses unknown top-level and nested fields', () => {
    expect(problems(validBody({ status: 'SUBMITTED' }))).toEqual([{ field: 'status', code: 'unknownField' }]);
    expect(problems(validBody({ bankDetails: bankDetails({ swift: 'SABRRUMM' }) }))).toEqual([
      { field: 'bankDetails.swift', code: 'unknownField' },
    ]);
  });

  it('refuses a __proto__ key from JSON.parse without crashing or polluting prototypes', () => {
    const text = JSON.stringify(validBody()).replace(/^\{/, '{"__proto__":{"polluted":"yes"},');
    const body: unknown = JSON.parse(text);
    expect(problems(body)).toEqual([{ field: '__proto__', code: 'unknownField' }]);
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect({}).not.toHaveProperty('polluted');
  });

  it('refuses a __proto__ key inside bankDetails', () => {
    const text = JSON.stringify(validBody()).replace('"bankDetails":{', '"bankDetails":{"__proto__":{"bik":"1"},');
    expect(problems(JSON.parse(text))).toEqual([{ field: 'bankDetails.__proto__', code: 'unknownField' }]);
  });

  it('refuses constructor and prototype keys', () => {
    expect(fields(JSON.parse(JSON.stringify({ ...validBody(), constructor: {}, prototype: 1 })))).toEqual(['constructor', 'prototype']);
  });

  it.each([
    ['reasonCode', { reasonCode: 1 }, 'reasonCode'],
    ['desiredTerminationDate', { desiredTerminationDate: 20260203 }, 'desiredTerminationDate'],
    ['comment', { comment: 12 }, 'comment'],
    ['bankDetails.bik', { bankDetails: bankDetails({ bik: 44525225 }) }, 'bankDetails.bik'],
    ['bankDetails.accountNumber', { bankDetails: bankDetails({ accountNumber: 40817810700000 }) }, 'bankDetails.accountNumber'],
    ['bankDetails.recipientName', { bankDetails: bankDetails({ recipientName: 123 }) }, 'bankDetails.recipientName'],
  ])('refuses a number in %s', (_name, overrides, field) => {
    const details = problems(validBody(overrides));
    expect(details).toHaveLength(1);
    expect(details[0]?.field).toBe(field);
  });

  it('says "must be a string" for numbers in string fields', () => {
    expect(problems(validBody({ bankDetails: bankDetails({ bik: 44525225 }) }))).toEqual([
      { field: 'bankDetails.bik', code: 'mustBeString' },
    ]);
    expect(problems(validBody({ comment: 12 }))).toEqual([{ field: 'comment', code: 'mustBeString' }]);
  });

  it.each([true, null, ['RELOCATION'], { code: 'RELOCATION' }])('refuses %j as reasonCode', (reasonCode) => {
    expect(fields(validBody({ reasonCode }))).toEqual(['reasonCode']);
  });

  it.each(['relocation', 'RELOCATION ', 'Relocation', ''])('refuses reasonCode %j not in the dictionary', (reasonCode) => {
    expect(problems(validBody({ reasonCode }))).toEqual([{ field: 'reasonCode', code: 'notInDictionary', allowed: REASON_CODES }]);
  });
});

describe('isUuid', () => {
  it.each([uuid(1), uuid(1).toUpperCase(), '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-1fff-8fff-ffffffffffff'])(
    'accepts %s',
    (value) => {
      expect(isUuid(value)).toBe(true);
    },
  );

  it.each([
    '',
    'x',
    uuid(1).slice(1),
    `${uuid(1)}0`,
    `{${uuid(1)}}`,
    uuid(1).replace(/-/g, ''),
    'g0000000-0000-0000-0000-000000000000',
    undefined,
    null,
    5,
  ])('refuses %j', (value) => {
    expect(isUuid(value)).toBe(false);
  });
});

describe('isTerminationRequest', () => {
  const request = {
    requestId: uuid(9),
    requestNumber: 'TR-ABCD-EFGH',
    status: 'SUBMITTED',
    createdAt: '2026-11-21T21:30:00.000Z',
    message: 'ok',
  };

  it('accepts a well-formed request', () => {
    expect(isTerminationRequest(request)).toBe(true);
  });

  it('refuses a request number over 20 characters, another status, extra fields or a missing field', () => {
    expect(isTerminationRequest({ ...request, requestNumber: 'TR-'.padEnd(21, 'A') })).toBe(false);
    expect(isTerminationRequest({ ...request, status: 'CLOSED' })).toBe(false);
    expect(isTerminationRequest({ ...request, extra: 1 })).toBe(false);
    expect(isTerminationRequest(withoutKey(request, 'message'))).toBe(false);
  });
});

describe('validateTerminationInput: comment characters', () => {
  it.each(['line one\nline two', 'windows\r\nbreak', 'a\u2028b', 'Переезд 2030', 'Thank you \u2764\uFE0F'])(
    'accepts the comment %j',
    (comment) => {
      expect(accepted(validBody({ comment }))).toBe(true);
    },
  );

  it.each([
    ['a zero-width space', '\u200b'],
    ['a tab', 'a\tb'],
    ['a bidi override', 'ok\u202eko'],
    ['an unpaired surrogate', 'x\ud800'],
  ])('refuses a comment with %s', (_name, comment) => {
    expect(problems(validBody({ comment }))).toEqual([{ field: 'comment', code: 'commentText' }]);
  });
});
