import { readFileSync, writeFileSync } from 'node:fs';
import type { CreateErrorCode } from '../client';

/*
 * npm run docs:clients: writes the error-handling example of docs/clients.md, one case per code
 * a create can answer with (CreateErrorCode: the ErrorCode enum as the API description narrows
 * it for the create). A code added to the enum does not compile here until it has an action, and
 * the example's `never` refuses to compile in an app, against the new types, until it handles
 * it. tests/generators/generated-clients.test.ts compiles the example and fails when the doc
 * holds another one.
 */

export const CLIENTS_DOC = 'docs/clients.md';

/** The file name the example's block starts with, as every TypeScript block of the doc does. */
export const ERROR_EXAMPLE_FILE = 'handle-create-error.ts';

/** What the app does with each code, as the doc's table "What each answer means for the UI" says. */
const CREATE_ACTIONS: Record<CreateErrorCode, string> = {
  VALIDATION_ERROR: 'markFields(error.details)',
  COMMENT_REQUIRED: 'showRule(error.message, error.details)',
  CONTRACT_NOT_ACTIVE: 'showRule(error.message, error.details)',
  TERMINATION_DATE_AFTER_CONTRACT_END: 'showRule(error.message, error.details)',
  BANK_ACCOUNT_KEY_MISMATCH: 'showRule(error.message, error.details)',
  DOCUMENT_NOT_AVAILABLE: 'showRule(error.message, error.details)',
  REQUEST_LIMIT_REACHED: 'showLimit(error.message, error.nextRequestAllowedAt)',
  ACTIVE_REQUEST_ALREADY_EXISTS: 'offerToOpen(error.message)',
  TERMINATION_REQUEST_NOT_FOUND: 'forgetAction(error.message)',
  UNAUTHORIZED: 'signIn()',
  CONTRACT_ACCESS_DENIED: 'notAvailable()',
  ACCESS_DENIED: 'notAvailable()',
  CONTRACT_NOT_FOUND: 'notAvailable()',
  MALFORMED_REQUEST: 'reportBug(error.correlationId)',
  IDEMPOTENCY_KEY_MISSING: 'reportBug(error.correlationId)',
  IDEMPOTENCY_KEY_REUSED: 'reportBug(error.correlationId)',
  ROUTE_NOT_FOUND: 'reportBug(error.correlationId)',
  WAF_FILTERED: 'reportBug(error.correlationId)',
  REQUEST_TOO_LARGE: 'reportBug(error.correlationId)',
  THROTTLED: 'tryLater(error.correlationId)',
  INTERNAL_ERROR: 'tryLater(error.correlationId)',
  SERVICE_UNAVAILABLE: 'tryLater(error.correlationId)',
};

/** The codes the example handles, in its order. */
export const HANDLED_CODES = Object.keys(CREATE_ACTIONS);

/** The example's source: the codes of each action together, in the order of their first. */
export function errorExample(): string {
  const actions = [...new Set(Object.values(CREATE_ACTIONS))];
  const cases = actions.map((action) => {
    const codes = Object.entries(CREATE_ACTIONS).filter(([, of]) => of === action);
    return `${codes.map(([code]) => `    case '${code}':\n`).join('')}      return ${action};\n`;
  });
  return `// ${ERROR_EXAMPLE_FILE}: one case per code a create answers with (written by npm run docs:clients)
import type { CreateError } from '../client';

declare function markFields(details: CreateError['details']): void;
declare function showRule(message: string, details: CreateError['details']): void;
declare function showLimit(message: string, nextRequestAllowedAt: string | undefined): void;
declare function offerToOpen(message: string): void;
declare function forgetAction(message: string): void;
declare function signIn(): void;
declare function notAvailable(): void;
declare function reportBug(correlationId: string): void;
declare function tryLater(correlationId: string): void;

export function handle(error: CreateError, status: number): void {
  switch (error.errorCode) {
${cases.join('')}    default: {
      // A code added to the API description fails to compile here until it has a case: switch
      // on error.errorCode, as here (CreateError is an intersection, so \`never = error\` fails anyway).
      const unhandled: never = error.errorCode;
      // At run time a code this version of the app does not know yet lands here (v1 adds codes):
      // its status says what to do, and its message what to show.
      console.warn('errorCode not handled', String(unhandled), error.correlationId);
      return status >= 500 || status === 429 ? tryLater(error.correlationId) : showRule(error.message, error.details);
    }
  }
}
`;
}

const BLOCK = new RegExp(`\`\`\`ts\\n// ${ERROR_EXAMPLE_FILE.replace('.', '\\.')}[\\s\\S]*?\`\`\``);

/** The doc with the example written in its block. */
export function withErrorExample(doc: string): string {
  if (!BLOCK.test(doc)) throw new Error(`${CLIENTS_DOC} has no \`\`\`ts block starting with // ${ERROR_EXAMPLE_FILE}`);
  return doc.replace(BLOCK, () => `\`\`\`ts\n${errorExample()}\`\`\``);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(CLIENTS_DOC, withErrorExample(readFileSync(CLIENTS_DOC, 'utf8')));
  console.log(`${CLIENTS_DOC} written`);
}
