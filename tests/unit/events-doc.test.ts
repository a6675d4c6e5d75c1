import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { statusChangedEventSchema, statusDecisionSchema, submittedEventSchema } from '../../lib/api-model/event-schemas';
import { buildEventsDoc, EVENTS_DOC } from '../../scripts/events-doc';

const withoutId = (schema: object) => Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$id'));

describe('docs/events.md', () => {
  const document = readFileSync(EVENTS_DOC, 'utf8');

  it('is what the generator makes from the schemas today (run npm run docs:events after changing one)', () => {
    expect(document).toBe(buildEventsDoc());
  });

  it('publishes the very schemas the consumer and the publisher validate with', () => {
    const blocks = [...document.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => JSON.parse(match[1] ?? 'null'));
    expect(blocks).toEqual(
      [statusDecisionSchema, submittedEventSchema, statusChangedEventSchema].map((s) => JSON.parse(JSON.stringify(withoutId(s)))),
    );
  });

  it('marks the account number, the names and the free texts as personal data', () => {
    for (const field of ['customerId', 'bankDetails.accountNumber', 'bankDetails.recipientName', 'comment', 'reason']) {
      expect(document).toMatch(new RegExp(`\\| \`${field.replace('.', '\\.')}\` \\|[^\\n]*\\*\\*personal data\\*\\*`));
    }
    expect(document).not.toMatch(/\| `bankDetails\.bik` \|[^\n]*personal data\*\*/);
  });
});
