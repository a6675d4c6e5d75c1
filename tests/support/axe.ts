import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { jsonObject } from './json';

/*
 * An accessibility audit of what a page shows now: axe-core (Deque's engine, the one behind
 * Lighthouse's and Playwright's audits) injected into the page and run with its default rules
 * (WCAG 2.0-2.2 A and AA, and best practices). Used by the browser tests on each state of the
 * demo page.
 */

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export const IMPACTS = ['minor', 'moderate', 'serious', 'critical'] as const;
export type Impact = (typeof IMPACTS)[number];

export interface Violation {
  rule: string;
  impact: Impact;
  help: string;
  /** The CSS selectors of the elements that break the rule. */
  targets: string[];
}

const isImpact = (value: unknown): value is Impact => IMPACTS.some((impact) => impact === value);

function parseViolations(value: unknown): Violation[] {
  if (!Array.isArray(value)) throw new Error(`axe answered ${JSON.stringify(value)}`);
  return value.map((item: unknown): Violation => {
    const { rule, impact, help, targets } = jsonObject(item);
    if (typeof rule !== 'string' || typeof help !== 'string' || !Array.isArray(targets)) {
      throw new Error(`axe answered ${JSON.stringify(item)}`);
    }
    // axe leaves impact null only on passes and incomplete checks; a violation without one counts as serious.
    return { rule, impact: isImpact(impact) ? impact : 'serious', help, targets: targets.map(String) };
  });
}

/** Runs axe-core on the page as it is, and returns what it found wrong. */
export async function audit(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.addScriptTag({ path: AXE_SOURCE });
  const found: unknown = await page.evaluate(`
    axe.run(document, { resultTypes: ['violations'] }).then((results) =>
      results.violations.map((v) => ({
        rule: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.map((node) => node.target.join(' ')),
      })),
    )`);
  return parseViolations(found);
}

/** How many elements break a rule, per impact. */
export function countByImpact(violations: Violation[]): Record<Impact, number> {
  const counts: Record<Impact, number> = { minor: 0, moderate: 0, serious: 0, critical: 0 };
  for (const violation of violations) counts[violation.impact] += violation.targets.length;
  return counts;
}
