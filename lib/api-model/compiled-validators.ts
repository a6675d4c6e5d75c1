import { createAjv } from './ajv';
import { VALIDATED_SCHEMAS } from './ajv';
import type { TerminationRequest, TerminationRequestInput, Withdrawal } from './schemas';
import type { ErasedDetail, StatusChangedDetail, StatusDecisionDetail, SubmittedDetail } from './event-schemas';
import type { StreamRedrive } from './operator-commands';

/*
 * The validators, compiled by Ajv when this module loads. That happens in tests and tools
 * only: the function bundles get this module's replacement, generated at build time by Ajv's
 * standalone code (scripts/build.ts), so no schema is compiled at a Lambda cold start.
 */

const ajv = createAjv();
export const validateInput = ajv.compile<TerminationRequestInput>(VALIDATED_SCHEMAS.validateInput);
export const validateUuid = ajv.compile<string>(VALIDATED_SCHEMAS.validateUuid);
export const validateTerminationRequest = ajv.compile<TerminationRequest>(VALIDATED_SCHEMAS.validateTerminationRequest);
export const validateWithdrawal = ajv.compile<Withdrawal>(VALIDATED_SCHEMAS.validateWithdrawal);
export const validateStatusDecision = ajv.compile<StatusDecisionDetail>(VALIDATED_SCHEMAS.validateStatusDecision);
export const validateSubmittedDetail = ajv.compile<SubmittedDetail>(VALIDATED_SCHEMAS.validateSubmittedDetail);
export const validateStatusChangedDetail = ajv.compile<StatusChangedDetail>(VALIDATED_SCHEMAS.validateStatusChangedDetail);
export const validateStreamRedrive = ajv.compile<StreamRedrive>(VALIDATED_SCHEMAS.validateStreamRedrive);
export const validateErasedDetail = ajv.compile<ErasedDetail>(VALIDATED_SCHEMAS.validateErasedDetail);
