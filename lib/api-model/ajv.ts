import { Ajv, type CodeOptions } from 'ajv';
import { formats } from './formats';
import { terminationRequestInputSchema, terminationRequestSchema, uuidSchema, withdrawalSchema } from './schemas';
import { erasedEventSchema, statusChangedEventSchema, statusDecisionSchema, submittedEventSchema } from './event-schemas';
import { streamRedriveSchema } from './operator-commands';

/** Each validator the service uses, by the name it is exported under, and its schema. */
export const VALIDATED_SCHEMAS = {
  validateInput: terminationRequestInputSchema,
  validateUuid: uuidSchema,
  validateTerminationRequest: terminationRequestSchema,
  validateWithdrawal: withdrawalSchema,
  validateStatusDecision: statusDecisionSchema,
  validateSubmittedDetail: submittedEventSchema,
  validateStatusChangedDetail: statusChangedEventSchema,
  validateStreamRedrive: streamRedriveSchema,
  validateErasedDetail: erasedEventSchema,
} as const;

/** One Ajv set-up for run time and build time, so both validate alike. */
export function createAjv(code?: CodeOptions): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, unicodeRegExp: true, ...(code ? { code } : {}) });
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
  // A marker for docs/events.md, not a rule.
  ajv.addKeyword({ keyword: 'x-personal-data', schemaType: 'boolean' });
  for (const schema of Object.values(VALIDATED_SCHEMAS)) ajv.addSchema(schema);
  return ajv;
}
