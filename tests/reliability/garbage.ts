import fc from 'fast-check';
import { bankDetails, validBody } from '../support/bodies';

/*
 * Inputs no client should send. Any of them must get a 4xx in the section 7 shape, never a 5xx.
 * Contract ids are random UUIDs that do not exist, so even an input that happens to be valid
 * ends in 404, never in a creation.
 */

export interface GarbageCall {
  contractId: string;
  rawBody: string;
  isBase64Encoded: boolean;
  headers: Record<string, string>;
}

/** A valid body with nothing random in it, so fast-check can replay a failing case. */
const fixedBody = () =>
  validBody({ desiredTerminationDate: '2044-06-30', comment: 'fuzz', documentIds: ['0b0e7d2a-8c1f-4a3b-9e5d-2f6a7b8c9d0e'] });

const emoji = '😀';
const combining = 'e\u0301';

const badValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('2026-02-30', '2026-13-01', '20260101', '2026-1-1', ' 2044-01-01', '2044-01-01T00:00:00Z', '0000-00-00', '2020-01-01'),
  fc.constantFrom('٠٤٤٥٢٥٢٢٥', '04452522', '0445252250', '４０８１７８１０７００００００００００１', '4081781070000000000１'),
  fc.constant(emoji.repeat(256)),
  fc.constant(combining.repeat(501)),
  fc.constant('\u0000name'),
  fc.constant('   '),
);

/** A valid body with one to three fields broken, and sometimes customerId or unknown fields added. */
const brokenBody = fc
  .record({
    field: fc.array(
      fc.constantFrom(
        'reasonCode',
        'desiredTerminationDate',
        'bankDetails',
        'bik',
        'accountNumber',
        'recipientName',
        'comment',
        'documentIds',
        'documentId0',
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    value: badValue,
    extra: fc.option(
      fc.dictionary(fc.constantFrom('customerId', 'extra', 'status', 'requestId', 'constructor'), fc.jsonValue({ maxDepth: 1 }), {
        minKeys: 1,
        maxKeys: 2,
      }),
    ),
  })
  .map(({ field, value, extra }) => {
    const body: Record<string, unknown> = fixedBody();
    const bank: Record<string, unknown> = bankDetails();
    for (const f of field) {
      if (f === 'bik' || f === 'accountNumber' || f === 'recipientName') bank[f] = value;
      else if (f === 'documentId0') body['documentIds'] = [value];
      else body[f] = value;
    }
    if (!field.includes('bankDetails')) body['bankDetails'] = bank;
    return JSON.stringify({ ...body, ...extra });
  });

const specialBodies = fc.constantFrom(
  // duplicate keys, prototype keys
  '{"reasonCode":"OTHER","reasonCode":"RELOCATION","desiredTerminationDate":"2044-06-30","bankDetails":{"bik":"044525225","accountNumber":"40817810700000000001","recipientName":"A"}}',
  '{"__proto__":{"customerId":"x"},"reasonCode":"RELOCATION","desiredTerminationDate":"2044-06-30","bankDetails":{"bik":"044525225","accountNumber":"40817810700000000001","recipientName":"A"}}',
  '{"constructor":{"prototype":{"polluted":true}},"reasonCode":"RELOCATION"}',
  // deep nesting, huge bodies
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"a":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`,
  JSON.stringify({ ...fixedBody(), comment: 'x'.repeat(40_000) }),
  // at the limits, valid: ends in 404 on an unknown contract
  JSON.stringify({
    ...fixedBody(),
    bankDetails: bankDetails({ recipientName: emoji.repeat(255) }),
    comment: combining.repeat(500),
  }),
  JSON.stringify({ ...fixedBody(), comment: `${emoji.repeat(999)}e` }),
  '',
  'null',
  '"just a string"',
  '{"reasonCode": NaN}',
  '\uFEFF{}',
);

const anyBody = fc.oneof(
  { weight: 3, arbitrary: brokenBody.map((rawBody) => ({ rawBody, isBase64Encoded: false })) },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => ({ rawBody: JSON.stringify(v), isBase64Encoded: false })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((rawBody) => ({ rawBody, isBase64Encoded: false })) },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 200 })
      .map((bytes) => ({ rawBody: Buffer.from(bytes).toString('base64'), isBase64Encoded: true })),
  },
  { weight: 1, arbitrary: specialBodies.map((rawBody) => ({ rawBody, isBase64Encoded: false })) },
);

/** Header values a client can put on the wire: printable ASCII only (fetch refuses others). */
const headerText = (ascii: boolean) =>
  ascii ? fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((s) => s.trim()) : fc.string({ maxLength: 60 });

function headers(ascii: boolean): fc.Arbitrary<Record<string, string>> {
  const optional = (arb: fc.Arbitrary<string>) => fc.option(arb, { nil: undefined });
  return fc
    .record({
      'Idempotency-Key': optional(
        fc.oneof(
          fc.uuid(),
          fc.uuid().map((u) => u.toUpperCase()),
          headerText(ascii),
          fc.constant(''),
        ),
      ),
      'X-Correlation-Id': optional(fc.oneof(fc.uuid(), headerText(ascii))),
      'Content-Type': optional(
        fc.oneof(
          fc.constantFrom(
            'application/json',
            'application/json; charset=utf-8',
            'application/json; charset=latin1',
            'text/plain',
            'APPLICATION/JSON',
          ),
          headerText(ascii),
        ),
      ),
      'Accept-Language': optional(fc.oneof(fc.constantFrom('ru', 'ru-RU,ru;q=0.9', 'en;q=0.1, ru;q=0.2', '*'), headerText(ascii))),
    })
    .map((h) => Object.fromEntries(Object.entries(h).filter((entry): entry is [string, string] => entry[1] !== undefined)));
}

const contractIds = fc.oneof(
  { weight: 4, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }) },
);

/** A whole call of garbage. `ascii` limits headers and path to what travels over HTTP. */
export function garbageCalls(ascii: boolean): fc.Arbitrary<GarbageCall> {
  return fc
    .record({ contractId: contractIds, body: anyBody, headers: headers(ascii) })
    .map(({ contractId, body, headers: h }) => ({ contractId, ...body, headers: h }));
}
