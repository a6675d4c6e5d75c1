import type { TerminationRequest, TerminationRequestInput } from '../client/index.ts';
import { isFinal } from '../lib/termination/lifecycle.ts';
import { MAX_PAGE_SIZE } from '../lib/termination/page-size.ts';
import type { FieldProblem } from './fields.ts';
import type { PageConfig } from './config.ts';
import { fill, TEXTS, type Language, type TextKey } from './texts.ts';

/*
 * What the page holds between events: the language, the config, the form's state, the action
 * whose outcome is unknown, and the requests it knows. Each request is held once (`requests`, by
 * its id), whatever answer brought it (a create, a GET, the list, a withdrawal): the panel and
 * the list draw it from there, so every place that shows a request shows its current status.
 */

/**
 * loading, ready, sending, done (the contract has a request in progress: it is shown instead of
 * the form), unavailable (the contract is not active) or blocked (no new request now: the bank
 * is terminating the contract, or the API says when the next request is possible; the note that
 * says so is shown instead of the form).
 */
export type FormState = 'loading' | 'ready' | 'sending' | 'done' | 'unavailable' | 'blocked';

/** Whether the form's fields are locked in a state: they can be changed when ready and while sending. */
export const fieldsLocked = (formState: FormState): boolean =>
  formState === 'done' || formState === 'unavailable' || formState === 'loading' || formState === 'blocked';

/** The form's fields, each with its control and its error text (`<field>-error`). */
export type Field = 'contract' | 'reason' | 'date' | 'bik' | 'account' | 'recipient' | 'comment' | 'documents';

/** The fields chosen among several boxes (the contract, the reason, the documents), not typed in one control. */
export type ChosenField = Extract<Field, 'contract' | 'reason' | 'documents'>;

/**
 * What each field's error says: a problem the page found (worded again in a new language), one
 * of the API's refusals the page words itself, or the API's own words where the page has none.
 */
export type FieldError = { problem: FieldProblem } | { key: TextKey; values?: Record<string, string> } | { text: string };

/** The keys of one user action, kept while its outcome is unknown. */
export interface Action {
  idempotencyKey: string;
  correlationId: string;
}

/** One of the page's own texts, with what fills it: kept so that a new language words it again. */
export interface Words {
  key: TextKey;
  values?: Record<string, string>;
  correlationId?: string;
}

export interface PageState {
  language: Language;
  config: PageConfig | undefined;
  formState: FormState;
  /** The reasons the API offers, labelled in the page's language (GET /api/v1/termination-reasons). */
  reasonChoices: { reasonCode: TerminationRequestInput['reasonCode']; label: string; commentRequired: boolean }[];
  /** The last create whose outcome is unknown: its contract, the form it sent, its keys and when it was sent. */
  unsettled: { contractId: string; form: string; action: Action; since: number } | undefined;
  /** The request in the panel: the chosen contract's request in progress; `made` when this page made it. */
  shown: { contractId: string; requestId: string; made: boolean } | undefined;
  /** The chosen contract's list: the ids on show, newest first, and where the next page starts. */
  listed: { contractId: string; ids: string[]; nextCursor?: string } | undefined;
  /** The contract whose list could not be read. */
  listFailed: string | undefined;
  /** The list on show could not be read again: it shows what was last read. */
  listStale: boolean;
  /** The list's last "Show more" brought nothing: there is no more to show. */
  listEnded: boolean;
  /** When the API said the next request on each contract is possible (the list's nextRequestAllowedAt), by contract. */
  nextRequestAllowedAt: Map<string, string>;
  /** Counts the list's reads: an answer is shown only if no later read was asked for since. */
  listGeneration: number;
  /** A problem the page itself words (not the API), beside the form. */
  localProblem: Words | undefined;
  /** What just happened to a request, said once in words (a withdrawal, a decision, a late answer). */
  notice: Words | undefined;
  /** The page could not load what it needs (its config, the reasons): said, with a retry. */
  loadProblem: TextKey | undefined;
}

export const state: PageState = {
  language: navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en',
  config: undefined,
  formState: 'loading',
  reasonChoices: [],
  unsettled: undefined,
  shown: undefined,
  listed: undefined,
  listFailed: undefined,
  listStale: false,
  listEnded: false,
  nextRequestAllowedAt: new Map(),
  listGeneration: 0,
  localProblem: undefined,
  notice: undefined,
  loadProblem: undefined,
};

/** Every request the page knows, by id, as the last answer that named it had it. */
const requests = new Map<string, { contractId: string; request: TerminationRequest }>();

/** A request as an answer gave it: it replaces what the page knew of it. */
export function remember(contractId: string, request: TerminationRequest): void {
  requests.set(request.requestId, { contractId, request });
}

export const requestOf = (requestId: string): TerminationRequest | undefined => requests.get(requestId)?.request;

/** The contract's requests the page knows, newest first. */
const requestsOn = (contractId: string): TerminationRequest[] =>
  [...requests.values()]
    .filter((entry) => entry.contractId === contractId)
    .map((entry) => entry.request)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));

/** The contract's request in progress (not final), if the page knows one: a contract has one at a time. */
export const activeRequestOf = (contractId: string): TerminationRequest | undefined =>
  requestsOn(contractId).find((request) => !isFinal(request.status));

/** The contract's newest request the page knows, whatever its status. */
export const latestRequestOf = (contractId: string): TerminationRequest | undefined => requestsOn(contractId)[0];

/** Requests whose withdrawal is in flight, and the key of each withdrawal whose outcome is unknown. */
export const withdrawing = new Set<string>();
export const withdrawActions = new Map<string, Action>();
export const fieldErrors = new Map<Field, FieldError>();

/** A page of the list: small, so that "Show more" is met on a demo contract. */
export const PAGE_SIZE = 5;

/** A list read again: as many requests as are on show, at least a page, at most what the API answers at once. */
export const rereadSize = (onShow: number): number => Math.min(MAX_PAGE_SIZE, Math.max(PAGE_SIZE, onShow));

/** One of the page's texts in the page's language. */
export const t = (key: TextKey, values: Record<string, string | number> = {}): string => fill(TEXTS[state.language][key], values);

/** A request just made by this page, or one that turned up while a create's outcome was unknown (its late answer). */
export function madeHere(contractId: string, request: { requestId: string; createdAt: string }): boolean {
  if (state.shown?.requestId === request.requestId) return state.shown.made;
  const { unsettled } = state;
  // The bank's clock and the customer's differ a little: a request made up to two minutes before the action counts as its answer.
  return unsettled?.contractId === contractId && Date.parse(request.createdAt) >= unsettled.since - 120_000;
}
