import type { Problem } from '../api-model/problems';
import { isUuid } from '../api-model/validator';
import { refuse, type Refused } from './refusals';

/*
 * The form of a call, as every HTTP use case checks it before anything stored
 * (docs/decisions/0013-order-of-checks.md): for a write, the Idempotency-Key's presence alone
 * first; then every problem of the path, the headers and the body at once, in one 400
 * VALIDATION_ERROR. Both come back as values, for the use case to return.
 */

/** The problems of one call, gathered so that the client learns them all at once. */
export class CallForm {
  private readonly problems: Problem[];

  /** Starts with what the edge found (in the headers). */
  constructor(headerProblems: readonly Problem[]) {
    this.problems = [...headerProblems];
  }

  /**
   * A UUID of the path or the key, lower-cased: their one form (0007-contracts.md). One that is
   * not a UUID is a problem of its field, and comes back empty: the call then ends at verdict().
   */
  uuid(value: string | undefined, field: 'contractId' | 'requestId' | 'Idempotency-Key'): string {
    if (isUuid(value)) return value.toLowerCase();
    this.problems.push({ field, code: 'mustBeUuid' });
    return '';
  }

  add(...problems: Problem[]): void {
    this.problems.push(...problems);
  }

  get failed(): boolean {
    return this.problems.length > 0;
  }

  /** Whether a problem names this field already. */
  concerns(field: string): boolean {
    return this.problems.some((problem) => problem.field === field);
  }

  /** The 400 listing every problem found, then `more`. */
  refusal(...more: Problem[]): Refused {
    return refuse('VALIDATION_ERROR', [...this.problems, ...more]);
  }

  /**
   * A write's form: without an Idempotency-Key nothing else is checked (400
   * IDEMPOTENCY_KEY_MISSING); else the form, starting with the header problems.
   */
  static ofWrite(call: { idempotencyKey: string | undefined; context: { problems: readonly Problem[] } }): CallForm | Refused {
    const { idempotencyKey } = call;
    if (idempotencyKey === undefined || idempotencyKey.trim() === '') {
      return refuse('IDEMPOTENCY_KEY_MISSING', [{ field: 'Idempotency-Key', code: 'required' }]);
    }
    return new CallForm(call.context.problems);
  }

  /** That 400 when a problem was found, else nothing. */
  verdict(): Refused | undefined {
    return this.failed ? this.refusal() : undefined;
  }
}
