import type { Refusal, RefusalCode } from '../termination/refusals';
import type { Problem } from '../api-model/problems';

/** Refusals made at the edge, before the use case runs. */
export type EdgeRefusalCode = 'MALFORMED_REQUEST' | 'UNAUTHORIZED';

/**
 * Every errorCode the API answers with (docs/decisions/0011-error-body.md): the domain's
 * refusals, the edge's, and its two failures. Each has its status in lib/http/outcomes.ts.
 */
export type ErrorCode = RefusalCode | EdgeRefusalCode | 'INTERNAL_ERROR' | 'SERVICE_UNAVAILABLE';

/** A refusal of the call found while reading the event (no customer, a body that is not JSON): a value, as the use cases' are. */
export interface EdgeRefused {
  kind: 'refused';
  refusal: Refusal<EdgeRefusalCode>;
}

export const edgeRefusal = (code: EdgeRefusalCode, problems: Problem[] = []): EdgeRefused => ({
  kind: 'refused',
  refusal: { code, problems },
});
