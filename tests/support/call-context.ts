import { textsFor } from '../../lib/http/texts';
import { NO_TIME_LIMIT } from '../../lib/retry';
import type { CallContext } from '../../lib/termination/call-context';
import type { Problem } from '../../lib/api-model/problems';

/** The context of a use case called directly, as the edge would give it: English words, no time limit, the edge's problems if any. */
export const directContext = (problems: Problem[] = [], messages: CallContext['messages'] = textsFor('en')): CallContext => ({
  problems,
  messages,
  invocation: NO_TIME_LIMIT,
});
