import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DECISION_OUTCOMES, OUTCOMES } from '../../lib/http/outcomes';
import { OPERATIONS_DOC, outcomesTable, withOutcomesTable } from '../../scripts/outcomes-doc';

describe("docs/operations.md's table of outcomes", () => {
  it('is what npm run docs:outcomes makes from lib/http/outcomes.ts today', () => {
    const operations = readFileSync(OPERATIONS_DOC, 'utf8');
    expect(operations).toBe(withOutcomesTable(operations));
  });

  it("has a row for every answer and every decision outcome, with its metric and its log line's outcome", () => {
    const rows = outcomesTable()
      .split('\n')
      .map((row) =>
        row
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    for (const [key, row] of Object.entries(OUTCOMES))
      expect(rows).toContainEqual([
        'API',
        `\`${key}\``,
        String(row.status),
        expect.stringContaining(row.log.message),
        `\`${row.log.outcome}\``,
        `\`${row.metric}\``,
      ]);
    for (const [key, line] of Object.entries(DECISION_OUTCOMES))
      expect(rows.some((row) => row[0] === 'decision' && row[1] === `\`${key}\`` && row[4] === `\`${line.outcome}\``)).toBe(true);
  });
});
