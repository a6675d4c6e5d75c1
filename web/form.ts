import { isFinal } from '../lib/termination/lifecycle.ts';
import { problemText, check, commentRequired } from './checks.ts';
import {
  chosenContract,
  CONTROLS,
  contractNote,
  contractRadios,
  controlOf,
  documentBoxes,
  documentIndexOf,
  dateInput,
  FIELD_OF,
  FIELDS,
  form,
  generalError,
  reasonRadios,
  byId,
  boxesOf,
  formFields,
  isTyped,
} from './elements.ts';
import { inputDay } from './dates.ts';
import { parseDate } from './fields.ts';
import {
  apiText,
  isAvailable,
  renderCommentLabel,
  renderContracts,
  renderCustomers,
  renderDocuments,
  renderGeneral,
  renderHints,
  renderLoadProblem,
  renderReasons,
  renderSubmit,
} from './render.ts';
import { PANEL_TITLES, renderNotice, renderPanel, renderRequests } from './requests-view.ts';
import { noNewRequest, renderContractNote, resetForm } from './new-request.ts';
import {
  activeRequestOf,
  fieldErrors,
  fieldsLocked,
  madeHere,
  requestOf,
  state,
  t,
  type Field,
  type FieldError,
  type FormState,
  type Words,
} from './state.ts';
import { isTextKey, type TextKey } from './texts.ts';

/* The form: its state, each field's error, what the customer is told, and the page in a new language. */

interface Problem {
  field: string;
  reason: string;
}

/** The API's refusals the page words itself, beside the field they name. */
const PAGE_WORDS = new Map<string, TextKey>([
  ['BANK_ACCOUNT_KEY_MISMATCH', 'accountMismatch'],
  ['COMMENT_REQUIRED', 'commentRequired'],
  ['CONTRACT_NOT_ACTIVE', 'contractNotActive'],
]);

function fieldErrorText(error: FieldError, field: Field): (string | HTMLSpanElement)[] {
  if ('key' in error) return [t(error.key, error.values)];
  if ('text' in error) return apiText(error.text.charAt(0).toUpperCase() + error.text.slice(1));
  return [problemText(field, error.problem)];
}

function renderFieldError(field: Field): void {
  const error = fieldErrors.get(field);
  byId(`${field}-error`, HTMLElement).replaceChildren(...(error === undefined ? [] : fieldErrorText(error, field)));
  const invalid = isTyped(field) ? [CONTROLS[field]] : boxesOf(field);
  for (const control of invalid) {
    if (error === undefined) control.removeAttribute('aria-invalid');
    else control.setAttribute('aria-invalid', 'true');
  }
}

function setFieldError(field: Field, error: FieldError | undefined): void {
  if (error === undefined) fieldErrors.delete(field);
  else fieldErrors.set(field, error);
  renderFieldError(field);
}

export function applyLanguage(): void {
  document.documentElement.lang = state.language;
  document.title = t('title');
  for (const element of document.querySelectorAll<HTMLElement>('[data-text]')) {
    const key = element.dataset['text'];
    if (key !== undefined && isTextKey(key)) element.textContent = t(key);
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-lang]')) {
    button.setAttribute('aria-pressed', String(button.dataset['lang'] === state.language));
  }
  // The date typed so far, in the new language's way of writing it.
  const day = parseDate(dateInput.value);
  if (day !== undefined) dateInput.value = inputDay(day);
  renderHints();
  renderSubmit();
  renderReasons(state.reasonChoices);
  renderCommentLabel(commentRequired());
  renderLoadProblem();
  renderCustomers();
  if (state.config) renderContracts(state.config.contracts);
  if (state.config) renderDocuments(state.config.documents ?? []);
  renderContractNote();
  for (const field of FIELDS) renderFieldError(field);
  if (state.localProblem) renderLocalProblem(state.localProblem);
  renderPanel();
  renderNotice();
  renderRequests();
}

export function clearProblems(): void {
  state.localProblem = undefined;
  generalError.replaceChildren();
  for (const field of FIELDS) setFieldError(field, undefined);
}

function renderLocalProblem(words: Words): void {
  renderGeneral([[t(words.key, words.values)]], words.correlationId);
}

export function showLocalProblem(key: TextKey, correlationId?: string): void {
  state.localProblem = correlationId === undefined ? { key } : { key, correlationId };
  renderLocalProblem(state.localProblem);
}

/**
 * The customer typed in a field: what no further typing can mend is said at once; a field that
 * already shows an error is checked in full, so the error goes as soon as the field is right.
 */
export function checkAsTyped(field: Field): void {
  const problem = check(field, fieldErrors.has(field) ? 'complete' : 'typing');
  setFieldError(field, problem === undefined ? undefined : { problem });
}

/** The customer left a field they changed: checked in full, a field they emptied included (the change event fires only on a change). */
export function checkOnLeaving(field: Field): void {
  const problem = check(field, 'complete');
  setFieldError(field, problem === undefined ? undefined : { problem });
}

/** Every field checked in full before a submit: true when all are right; otherwise the first wrong one has the focus. */
export function checkAll(): boolean {
  const wrong = FIELDS.filter((field) => {
    const problem = check(field, 'complete');
    setFieldError(field, problem === undefined ? undefined : { problem });
    return problem !== undefined;
  });
  const [first] = wrong;
  if (first === undefined) return true;
  showLocalProblem('fixFields');
  controlOf(first)?.focus();
  return false;
}

/**
 * A refusal of documents named: one error beside the documents naming each file that cannot be
 * attached (the answer does not say why, so that it tells nothing of other customers' documents).
 */
function documentsError(paths: string[]): FieldError | undefined {
  const chosen = documentBoxes().filter((box) => box.checked);
  const files = paths.flatMap((path) => {
    const box = chosen[documentIndexOf(path) ?? -1];
    const name = box?.parentElement?.querySelector('.document-name')?.textContent;
    return name ? [name] : [];
  });
  return files.length === 0 ? undefined : { key: 'documentNotAvailable', values: { files: files.join(', ') } };
}

/** The documents a refusal named are offered no more (removed, or still being checked): choosing again means among the rest. */
function stopOffering(paths: string[]): void {
  const chosen = documentBoxes().filter((box) => box.checked);
  const gone = new Set(paths.map((path) => chosen[documentIndexOf(path) ?? -1]?.value));
  if (!state.config?.documents) return;
  state.config.documents = state.config.documents.filter(({ documentId }) => !gone.has(documentId));
  renderDocuments(state.config.documents);
}

/** The API's refusal: its message in the general area, each detail beside its field (or there, if the form has no such field). */
export function showRefusal(error: {
  errorCode: string;
  message: string;
  correlationId: string;
  details: Problem[];
  nextRequestAllowedAt?: string;
}): void {
  if (error.errorCode === 'REQUEST_LIMIT_REACHED' && error.nextRequestAllowedAt !== undefined) {
    // Not retried, and not the customer's to fix: the note that says when a new request is possible replaces the form.
    state.nextRequestAllowedAt.set(chosenContract()?.contractId ?? '', error.nextRequestAllowedAt);
    syncForm();
    contractNote.focus();
    return;
  }
  const documents = error.details.filter(({ field }) => documentIndexOf(field) !== undefined);
  const named = documentsError(documents.map(({ field }) => field));
  const elsewhere: (string | HTMLSpanElement)[][] = [];
  let first: Field | undefined;
  if (named !== undefined) {
    stopOffering(documents.map(({ field }) => field));
    setFieldError('documents', named);
    first = 'documents';
  }
  for (const { field: path, reason } of named === undefined
    ? error.details
    : error.details.filter((detail) => !documents.includes(detail))) {
    const field = FIELD_OF.get(path);
    if (field === undefined) {
      elsewhere.push(apiText(`${path}: ${reason}`));
      continue;
    }
    // The page's words where it knows the problem; the API's where it differs from what the page checks.
    const problem = check(field, 'complete');
    const pageWords = PAGE_WORDS.get(error.errorCode);
    setFieldError(field, problem ? { problem } : pageWords ? { key: pageWords } : { text: reason });
    first ??= field;
  }
  // One message per refusal: what is said beside a field is not said again above it in the API's words.
  renderGeneral(first === undefined ? [apiText(error.message), ...elsewhere] : [[t('fixFields')], ...elsewhere], error.correlationId);
  ((first === undefined ? undefined : controlOf(first)) ?? generalError).focus();
}

/** The form's fields can be changed when ready and while sending; another contract can be chosen but while sending. */
export function setFormState(formState: FormState): void {
  state.formState = formState;
  form.dataset['state'] = formState;
  const locked = fieldsLocked(formState);
  for (const control of [...Object.values(CONTROLS), ...reasonRadios(), ...documentBoxes()]) control.disabled = locked;
  for (const radio of contractRadios()) radio.disabled = formState === 'sending';
  contractNote.hidden = formState !== 'unavailable' && formState !== 'blocked';
  // A request in progress, or the note that no new one is possible now, is shown instead of the form.
  formFields.hidden = formState === 'done' || formState === 'blocked';
  renderContractNote();
  renderSubmit();
}

/**
 * The form for the contract chosen, from what the page knows now: not available, still loading,
 * its request in progress shown instead of the form, or ready for a request. A request the panel
 * showed that has become final (withdrawn, decided) is said once, and the form is back.
 */
export function syncForm(): void {
  if (state.formState === 'sending') return;
  const contract = chosenContract();
  const active = contract === undefined ? undefined : activeRequestOf(contract.contractId);
  const before = state.shown === undefined ? undefined : requestOf(state.shown.requestId);
  if (before !== undefined && before.requestId !== active?.requestId) {
    // It ended: said once, in its final status's own words (the lifecycle's list, lib/termination/lifecycle.ts).
    if (isFinal(before.status)) state.notice = { key: PANEL_TITLES[before.status], values: { number: before.requestNumber } };
    state.shown = undefined;
    resetForm();
    clearProblems();
  }
  if (contract !== undefined && active !== undefined && state.shown?.requestId !== active.requestId) {
    const made = madeHere(contract.contractId, active);
    if (made && state.unsettled !== undefined) {
      // The answer that never came, found: the action is settled, and the problem it left is gone.
      state.unsettled = undefined;
      state.notice = { key: 'lateAnswer' };
      clearProblems();
    }
    state.shown = { contractId: contract.contractId, requestId: active.requestId, made };
  }
  const listKnown =
    contract !== undefined && (state.listed?.contractId === contract.contractId || state.listFailed === contract.contractId);
  if (contract === undefined || !isAvailable(contract)) setFormState('unavailable');
  else if (state.reasonChoices.length === 0 || !listKnown) setFormState('loading');
  else if (state.shown !== undefined) setFormState('done');
  else setFormState(noNewRequest(contract) === undefined ? 'ready' : 'blocked');
  renderPanel();
  renderNotice();
  renderRequests();
}

/** Another contract was chosen: a new action on it, once its list says whether it has a request in progress. */
export function contractChosen(): void {
  clearProblems();
  state.unsettled = undefined;
  state.shown = undefined;
  state.notice = undefined;
  state.listed = undefined;
  state.listFailed = undefined;
  state.listStale = false;
  state.listEnded = false;
  setFormState('loading');
  syncForm();
}
