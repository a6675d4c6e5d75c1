import type { Problem } from '../api-model/problems';
import type { Invocation } from '../retry';

/** The words an answer is stored with, in the caller's language: a replay answers with the very same bytes. */
export interface Messages {
  created: (requestNumber: string) => string;
  withdrawn: () => string;
}

/**
 * What the entry point hands every use case with the call, besides the call's own fields: the
 * field problems it found (in the headers), reported with the call's; the words an answer is
 * stored with; and the time the invocation has left, which bounds the use case's budget. None of
 * it is HTTP: the edge (lib/http/edge.ts) fills it from the event.
 */
export interface CallContext {
  problems: readonly Problem[];
  messages: Messages;
  invocation: Invocation;
}
