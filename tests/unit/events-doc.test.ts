import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import {
  COMPACT_JWS,
  ESCAPE_ON_OUTPUT,
  statusChangedEventSchema,
  statusDecisionSchema,
  submittedEventSchema,
} from '../../lib/api-model/event-schemas';
import { isSubmittedDetail, validateTerminationInput } from '../../lib/api-model/validator';
import { buildEventsDoc, EVENTS_DOC, textFields } from '../../scripts/events-doc';
import { ASYNCAPI_PATH } from '../../scripts/asyncapi';
import { bankDetails, validBody } from '../support/bodies';

describe('docs/events.md', () => {
  const document = readFileSync(EVENTS_DOC, 'utf8');

  it('is what the generator makes from the schemas today (run npm run docs:events after changing one)', () => {
    expect(document).toBe(buildEventsDoc());
  });

  it('points to docs/asyncapi.yaml for each schema, which holds the very schemas the code validates with (tests/unit/asyncapi.test.ts)', () => {
    for (const name of ['StatusDecision', 'TerminationRequestSubmitted', 'TerminationRequestStatusChanged'])
      expect(document).toContain(`[\`asyncapi.yaml\`](asyncapi.yaml), \`components.schemas.${name}\``);
    expect(document).not.toContain('```json');
  });

  it('marks the account number, the names and the free texts as personal data', () => {
    for (const field of ['customerId', 'bankDetails.accountNumber', 'bankDetails.recipientName', 'comment', 'reason']) {
      expect(document).toMatch(new RegExp(`\\| \`${field.replace('.', '\\.')}\` \\|[^\\n]*\\*\\*personal data\\*\\*`));
    }
    expect(document).not.toMatch(/\| `bankDetails\.bik` \|[^\n]*personal data\*\*/);
  });

  it('says every text field is plain text to escape for HTML and spreadsheets, and names the fields', () => {
    const section = document.slice(document.indexOf('## Text: plain text'));
    expect(section).toMatch(/^## Text: plain text/);
    expect(section).toMatch(/HTML[^\n]*\n?[^\n]*escape `&`, `<`, `>`/);
    expect(section).toContain('begins with `=`, `+`, `-` or `@`');
    const rows = [
      ['in: `TerminationRequestStatusChanged` from the back office', ['eventId', 'reason']],
      ['out: `TerminationRequestSubmitted`', ['customerId', 'bankDetails.recipientName', 'comment']],
      ['out: `TerminationRequestStatusChanged`', ['customerId', 'reason', 'decisionEventId']],
    ] as const;
    for (const [event, fields] of rows) {
      expect(section).toContain(`| ${event} | ${fields.map((f) => `\`${f}\``).join(', ')} |`);
    }
    // And each of those fields says it in its own description, which docs/asyncapi.yaml shows.
    expect(readFileSync(ASYNCAPI_PATH, 'utf8').split(ESCAPE_ON_OUTPUT).length - 1).toBe(rows.flatMap(([, fields]) => fields).length);
  });

  it('marks every string field whose shape the schema does not fix as text to escape', () => {
    const fixed = (field: Record<string, unknown>) =>
      Array.isArray(field['enum']) ||
      field['const'] !== undefined ||
      ['uuid', 'date', 'date-time'].includes(String(field['format'])) ||
      /^\^\[0-9\]\{\d+\}\$$/.test(String(field['pattern'])) ||
      field['pattern'] === COMPACT_JWS;
    const strings = (schema: unknown, prefix = ''): [string, Record<string, unknown>][] => {
      if (typeof schema !== 'object' || schema === null || !('properties' in schema)) return [];
      const properties: unknown = schema.properties;
      if (typeof properties !== 'object' || properties === null) return [];
      return Object.entries(properties).flatMap(([name, field]: [string, unknown]) => {
        if (typeof field !== 'object' || field === null) return [];
        const entries: [string, Record<string, unknown>] = [`${prefix}${name}`, Object.fromEntries(Object.entries(field))];
        if ('type' in field && field.type === 'object') return strings(field, `${prefix}${name}.`);
        return 'type' in field && field.type === 'string' ? [entries] : [];
      });
    };
    // The request number is made by the service, from letters and digits only.
    const madeByTheService = ['requestNumber'];
    for (const schema of [statusDecisionSchema, submittedEventSchema, statusChangedEventSchema]) {
      const free = strings(schema)
        .filter(([path, field]) => !fixed(field) && !madeByTheService.includes(path))
        .map(([path]) => path);
      expect(textFields(schema)).toEqual(free);
    }
  });

  it('keeps taking the text it tells consumers to escape: a name beginning with = and a comment with markup', () => {
    const recipientName = '=HYPERLINK("https://evil.test","Anna Petrova")';
    const comment = '<img src=x onerror=alert(1)> @SUM(1+1) -1+2 +7';
    expect(validateTerminationInput(validBody({ comment, bankDetails: bankDetails({ recipientName }) }))).toMatchObject({ ok: true });
    const detail = {
      eventId: randomUUID(),
      requestId: randomUUID(),
      contractId: randomUUID(),
      customerId: '=cmd|customer',
      requestNumber: 'TR-ABCD-EFGH',
      status: 'SUBMITTED',
      reasonCode: 'RELOCATION',
      desiredTerminationDate: '2045-06-30',
      bankDetails: bankDetails({ recipientName }),
      comment,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    expect(isSubmittedDetail(detail)).toBe(true);
  });
});
