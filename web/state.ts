import type { TerminationRequest, TerminationRequestInput } from '../client/index.ts';
import type { FieldProblem } from './fields.ts';
import type { PageConfig } from './config.ts';
import { fill, TEXTS, type Language, type TextKey } from './texts.ts';

/*
 * What the page holds between events: the language, the config, the form's state, the action
 * whose outcome is unknown, and the requests on show. One object, read and changed by the other
 * modules, so that each fact has one place.
 */

/** loading, ready, sending, done (a request was made: the form is locked) or unavailable (the contract is not active). */
export type FormState = 'loading' | 'ready' | 'sending' | 'done' | 'unavailable';

/** The form's fields, each with its control and its error text (`<field>-error`). */
export type Field = 'contract' | 'reason' | 'date' | 'bik' | 'account' | 'recipient' | 'comment';

/**
 * What each field's error says: a problem the page found (worded again in a new language), one
 * of the API's refusals the page words itself, or the API's own words where the page has none.
 */
export type FieldError = { problem: FieldProblem } | { key: TextKey } | { text: string };

/** The keys of one user action, kept while its outcome is unknown. */
export interface Action {
  idempotencyKey: string;
  correlationId: string;
}

export interface PageState {
  language: Language;
  config: PageConfig | undefined;
  formState: FormState;
  /** The reasons the API offers, labelled in the page's language (GET /api/v1/termination-reasons). */
  reasonChoices: { reasonCode: TerminationRequestInput['reasonCode']; label: string; commentRequired: boolean }[];
  /** The last action whose outcome is unknown: the form it sent and its keys, reused if that very form is sent again. */
  unsettled: { form: string; action: Action } | undefined;
  /** The request on show, fetched again when the language changes. */
  shown: { contractId: string; request: TerminationRequest } | undefined;
  /** The contract's requests on show, newest first, and where the next page starts. */
  listed: { contractId: string; requests: TerminationRequest[]; nextCursor?: string } | undefined;
  /** Counts the list's reads: an answer is shown only if no later read was asked for since. */
  listGeneration: number;
  /** A problem the page itself words (not the API), shown again in a new language. */
  localProblem: { key: TextKey; correlationId?: string } | undefined;
}

export const state: PageState = {
  language: navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en',
  config: undefined,
  formState: 'loading',
  reasonChoices: [],
  unsettled: undefined,
  shown: undefined,
  listed: undefined,
  listGeneration: 0,
  localProblem: undefined,
};

/** Requests whose withdrawal is in flight, and the key of each withdrawal whose outcome is unknown. */
export const withdrawing = new Set<string>();
export const withdrawActions = new Map<string, Action>();
export const fieldErrors = new Map<Field, FieldError>();

/** A page of the list: small, so that "Show more" is met on a demo contract. */
export const PAGE_SIZE = 5;

/** One of the page's texts in the page's language. */
export const t = (key: TextKey, values: Record<string, string | number> = {}): string => fill(TEXTS[state.language][key], values);
