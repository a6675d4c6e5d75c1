import { createTerminationClient, RETRIED_STATUSES, type TerminationRequest, type TerminationRequestInput } from '../client/index.ts';
import type { PageConfig } from './config.ts';
import {
  accountInput,
  bikInput,
  byId,
  chosenContractId,
  commentInput,
  dateInput,
  form,
  reasonSelect,
  recipientInput,
  resultSection,
  withdrawDialog,
} from './elements.ts';
import { parseDate, withoutSpaces } from './fields.ts';
import { applyLanguage, checkAll, clearProblems, setFormState, showLocalProblem, showRefusal } from './form.ts';
import { focusRequest, renderRequests, renderResult, withNumber } from './render.ts';
import { PAGE_SIZE, state, withdrawActions, withdrawing } from './state.ts';

/*
 * The page's calls to the API, each over the typed client (client/), which is all the page knows
 * of the API. One user action is one Idempotency-Key: the submit button is disabled while a call
 * is in flight, a submit of the very same form after an answer that never came (or one worth
 * retrying) reuses the key, so the bank records the request once, and after a 201 the form is
 * done (locked, the answer kept on screen) until the customer picks another contract.
 */

const client = (loaded: PageConfig) =>
  createTerminationClient({ baseUrl: loaded.apiUrl, token: () => loaded.token, language: state.language });

function readInput(): TerminationRequestInput {
  const reasonCode = state.reasonChoices.find((reason) => reason.reasonCode === reasonSelect.value)?.reasonCode;
  if (reasonCode === undefined) throw new Error(`Unknown reason ${reasonSelect.value}`);
  const comment = commentInput.value;
  return {
    reasonCode,
    desiredTerminationDate: parseDate(dateInput.value) ?? dateInput.value,
    bankDetails: {
      bik: withoutSpaces(bikInput.value),
      accountNumber: withoutSpaces(accountInput.value),
      recipientName: recipientInput.value.trim(),
    },
    ...(comment.trim() === '' ? {} : { comment }),
  };
}

async function showRequest(loaded: PageConfig, contractId: string, created: TerminationRequest): Promise<void> {
  // The request as the bank now has it (its current status), in the page's language.
  const fetched = await client(loaded).getTerminationRequest(contractId, created.requestId);
  state.shown = { contractId, request: fetched.ok ? fetched.value : created };
  renderResult(state.shown.request);
}

export async function submit(loaded: PageConfig): Promise<void> {
  // A request was made: the form is done, and another submit only points at its answer.
  if (state.formState === 'done') {
    resultSection.focus();
    return;
  }
  if (state.formState !== 'ready') return;
  clearProblems();
  if (!checkAll()) return;
  setFormState('sending');
  const contractId = chosenContractId();
  let made = false;
  try {
    const input = readInput();
    const sent = JSON.stringify([contractId, input]);
    const action =
      state.unsettled?.form === sent ? state.unsettled.action : { idempotencyKey: crypto.randomUUID(), correlationId: crypto.randomUUID() };
    state.unsettled = undefined;
    const result = await client(loaded).createTerminationRequest(contractId, input, action);
    // How many calls the client made for this action (its retries included): for support and tests.
    form.dataset['attempts'] = String(result.attempts);
    if (result.ok) {
      made = true;
      state.shown = { contractId, request: result.value };
      renderResult(result.value);
      await showRequest(loaded, contractId, result.value);
      await refreshRequests(loaded);
    } else if (result.reason === 'unreachable') {
      state.unsettled = { form: sent, action };
      showLocalProblem('unreachable', result.correlationId);
    } else {
      if (RETRIED_STATUSES.has(result.status)) state.unsettled = { form: sent, action };
      showRefusal(result.error);
    }
  } catch (error) {
    console.error(error);
    showLocalProblem('unexpected');
  } finally {
    if (made) {
      setFormState('done');
      resultSection.focus();
    } else setFormState('ready');
  }
}

/** The first page of the contract's requests, or (more) the next one after those on show. */
export async function loadRequests(loaded: PageConfig, contractId: string, more = false): Promise<void> {
  const before = more && state.listed?.contractId === contractId ? state.listed.requests : [];
  const cursor = more && state.listed?.contractId === contractId ? state.listed.nextCursor : undefined;
  const asked = ++state.listGeneration;
  const result = await client(loaded).listTerminationRequests(contractId, { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) });
  // Only the newest read of the list is shown: an older answer (another contract, a refresh that
  // started before a withdrawal) would show what is no longer so.
  if (!result.ok || asked !== state.listGeneration || chosenContractId() !== contractId) return;
  const { items, nextCursor } = result.value;
  state.listed = { contractId, requests: [...before, ...items], ...(nextCursor === undefined ? {} : { nextCursor }) };
  renderRequests();
}

/** The requests on show, read again: statuses change without a reload (the bank decides meanwhile). */
export async function refreshRequests(loaded: PageConfig): Promise<void> {
  const contractId = chosenContractId();
  if (contractId === '') return;
  if (state.listed?.contractId !== contractId) {
    await loadRequests(loaded, contractId);
    return;
  }
  const limit = Math.min(100, Math.max(PAGE_SIZE, state.listed.requests.length));
  const asked = ++state.listGeneration;
  const result = await client(loaded).listTerminationRequests(contractId, { limit });
  if (!result.ok || asked !== state.listGeneration || chosenContractId() !== contractId) return;
  const { items, nextCursor } = result.value;
  state.listed = { contractId, requests: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
  renderRequests();
}

/** The page's own confirmation, in the page's language: true when the customer chose to withdraw. */
function confirmWithdrawal(requestNumber: string): Promise<boolean> {
  byId('withdraw-title', HTMLElement).replaceChildren(...withNumber('withdrawTitle', requestNumber));
  withdrawDialog.returnValue = '';
  withdrawDialog.showModal();
  return new Promise((resolve) => {
    withdrawDialog.addEventListener('close', () => resolve(withdrawDialog.returnValue === 'confirm'), { once: true });
  });
}

/** One user action: withdraw a request, after the customer confirms. Its key is kept until the outcome is known. */
export async function withdraw(loaded: PageConfig, requestId: string, requestNumber: string): Promise<void> {
  const contractId = state.listed?.contractId;
  if (contractId === undefined || withdrawing.has(requestId)) return;
  if (!(await confirmWithdrawal(requestNumber))) {
    focusRequest(requestId);
    return;
  }
  clearProblems();
  withdrawing.add(requestId);
  renderRequests();
  focusRequest(requestId);
  const action = withdrawActions.get(requestId) ?? { idempotencyKey: crypto.randomUUID(), correlationId: crypto.randomUUID() };
  withdrawActions.set(requestId, action);
  try {
    const result = await client(loaded).withdrawTerminationRequest(contractId, requestId, action);
    if (result.ok) withdrawActions.delete(requestId);
    else if (result.reason === 'unreachable') showLocalProblem('withdrawUnreachable', result.correlationId);
    else {
      if (!RETRIED_STATUSES.has(result.status)) withdrawActions.delete(requestId);
      showRefusal(result.error);
    }
  } catch (error) {
    console.error(error);
    showLocalProblem('unexpected');
  } finally {
    withdrawing.delete(requestId);
    await refreshRequests(loaded);
    focusRequest(requestId);
  }
}

/** The form's reasons, from the API in the page's language: the list the create itself accepts. */
export async function loadReasons(loaded: PageConfig): Promise<void> {
  const asked = state.language;
  const reasons = await client(loaded).listTerminationReasons();
  if (!reasons.ok) {
    showLocalProblem(reasons.reason === 'unreachable' ? 'unreachable' : 'unexpected', reasons.correlationId);
    return;
  }
  // Another language may have been chosen meanwhile: its own call renders it.
  if (asked !== state.language) return;
  state.reasonChoices = reasons.value.items.map(({ reasonCode, label, commentRequired: required }) => ({
    reasonCode,
    label,
    commentRequired: required,
  }));
  applyLanguage();
}

/** Read afresh at each call: the request on show may change while a call is awaited. */
const shownRequestId = (): string | undefined => state.shown?.request.requestId;

export async function refreshShown(loaded: PageConfig): Promise<void> {
  if (!state.shown) return;
  const { contractId, request } = state.shown;
  const fetched = await client(loaded).getTerminationRequest(contractId, request.requestId);
  // The page may have shown another request while this one was fetched.
  if (fetched.ok && shownRequestId() === request.requestId) {
    state.shown = { contractId, request: fetched.value };
    renderResult(fetched.value);
  }
}
