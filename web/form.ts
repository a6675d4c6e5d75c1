import { problemText, check, commentRequired } from './checks.ts';
import {
  chosenContract,
  CONTROLS,
  contractNote,
  contractRadios,
  controlOf,
  dateInput,
  FIELD_OF,
  FIELDS,
  form,
  generalError,
  reasonSelect,
  byId,
  formFields,
} from './elements.ts';
import { inputDay } from './dates.ts';
import { parseDate } from './fields.ts';
import {
  apiText,
  isAvailable,
  renderCommentLabel,
  renderContracts,
  renderCustomers,
  renderGeneral,
  renderHints,
  renderLoadProblem,
  renderOptions,
  renderSubmit,
} from './render.ts';
import { renderNotice, renderPanel, renderRequests } from './requests-view.ts';
import { activeRequestOf, fieldErrors, requestOf, state, t, type Field, type FieldError, type FormState, type Words } from './state.ts';
import { isTextKey, STATUS_LABELS, type TextKey } from './texts.ts';

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
  if ('key' in error) return [t(error.key)];
  if ('text' in error) return apiText(error.text.charAt(0).toUpperCase() + error.text.slice(1));
  return [problemText(field, error.problem)];
}

function renderFieldError(field: Field): void {
  const error = fieldErrors.get(field);
  byId(`${field}-error`, HTMLElement).replaceChildren(...(error === undefined ? [] : fieldErrorText(error, field)));
  const invalid = field === 'contract' ? contractRadios() : [CONTROLS[field]];
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
  // The reason is the customer's to choose: the list starts on a prompt, once there are reasons to choose from.
  const reasons = state.reasonChoices.map(({ reasonCode, label }) => ({ value: reasonCode, label }));
  renderOptions(reasonSelect, reasons.length === 0 ? [] : [{ value: '', label: t('chooseReason') }, ...reasons]);
  renderCommentLabel(commentRequired());
  renderLoadProblem();
  renderCustomers();
  if (state.config) renderContracts(state.config.contracts);
  contractNote.textContent = t('contractNote');
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

/** The customer left a field: an empty one is not an error yet (it may be filled later). */
export function checkOnLeaving(field: Field, value: string): void {
  if (value.trim() === '' && !fieldErrors.has(field)) return;
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

/** The API's refusal: its message in the general area, each detail beside its field (or there, if the form has no such field). */
export function showRefusal(error: { errorCode: string; message: string; correlationId: string; details: Problem[] }): void {
  const elsewhere: (string | HTMLSpanElement)[][] = [];
  let first: Field | undefined;
  for (const { field: path, reason } of error.details) {
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
  renderGeneral([apiText(error.message), ...elsewhere], error.correlationId);
  if (first !== undefined) controlOf(first)?.focus();
}

/** The form's fields can be changed when ready and while sending; another contract can be chosen but while sending. */
export function setFormState(formState: FormState): void {
  state.formState = formState;
  form.dataset['state'] = formState;
  const locked = formState === 'done' || formState === 'unavailable' || formState === 'loading';
  for (const control of Object.values(CONTROLS)) control.disabled = locked;
  for (const radio of contractRadios()) radio.disabled = formState === 'sending';
  contractNote.hidden = formState !== 'unavailable';
  // A request in progress is shown instead of the form: the contract can have no other.
  formFields.hidden = formState === 'done';
  renderSubmit();
}

/** A request just made by this page, or one that turned up while a create's outcome was unknown (its late answer). */
function madeHere(contractId: string, request: { requestId: string; createdAt: string }): boolean {
  if (state.shown?.requestId === request.requestId) return state.shown.made;
  const { unsettled } = state;
  // The bank's clock and the customer's differ a little: a request made up to two minutes before the action counts as its answer.
  return unsettled?.contractId === contractId && Date.parse(request.createdAt) >= unsettled.since - 120_000;
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
    const status = STATUS_LABELS[before.status][state.language];
    state.notice = { key: before.status === 'WITHDRAWN' ? 'withdrawn' : 'decided', values: { number: before.requestNumber, status } };
    state.shown = undefined;
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
  else setFormState(state.shown === undefined ? 'ready' : 'done');
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
  setFormState('loading');
  syncForm();
}
