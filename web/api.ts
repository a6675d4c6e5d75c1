import { createTerminationClient, RETRIED_STATUSES, type TerminationRequestInput } from '../client/index.ts';
import { loadConfig, type PageConfig } from './config.ts';
import {
  accountInput,
  bikInput,
  byId,
  chosenContractId,
  chosenDocumentIds,
  chosenReason,
  commentInput,
  dateInput,
  form,
  generalError,
  notice,
  recipientInput,
  resultSection,
  withdrawDialog,
} from './elements.ts';
import { parseDate, withoutSpaces } from './fields.ts';
import { applyLanguage, checkAll, clearProblems, setFormState, showLocalProblem, showRefusal, syncForm } from './form.ts';
import type { TextKey } from './texts.ts';
import { renderContracts, withNumber } from './render.ts';
import { focusRequest, renderNotice, renderPanel, renderRequests } from './requests-view.ts';
import { activeRequestOf, PAGE_SIZE, remember, requestOf, rereadSize, state, withdrawActions, withdrawing } from './state.ts';

/*
 * The page's calls to the API, each over the typed client (client/), which is all the page knows
 * of the API. One user action is one Idempotency-Key: the submit button is disabled while a call
 * is in flight, and a submit of the very same form after an outcome that stayed unknown (no
 * answer, or one worth retrying) reuses the key, so the bank records the request once. Every
 * answer that names a request updates the page's one record of it (state.ts), and the form
 * follows: a contract with a request in progress shows that request instead of the form.
 */

export const client = (loaded: PageConfig) =>
  createTerminationClient({ baseUrl: loaded.apiUrl, token: () => loaded.token, language: state.language });

const newAction = () => ({ idempotencyKey: crypto.randomUUID(), correlationId: crypto.randomUUID() });

function readInput(): TerminationRequestInput {
  const reasonCode = state.reasonChoices.find((reason) => reason.reasonCode === chosenReason())?.reasonCode;
  if (reasonCode === undefined) throw new Error(`Unknown reason ${chosenReason()}`);
  const comment = commentInput.value;
  const documentIds = chosenDocumentIds();
  return {
    reasonCode,
    desiredTerminationDate: parseDate(dateInput.value) ?? dateInput.value,
    bankDetails: {
      bik: withoutSpaces(bikInput.value),
      accountNumber: withoutSpaces(accountInput.value),
      recipientName: recipientInput.value.trim(),
    },
    ...(comment.trim() === '' ? {} : { comment }),
    ...(documentIds.length === 0 ? {} : { documentIds }),
  };
}

/**
 * The outcome of an action is unknown (no answer, or one the client retried in vain): the bank's
 * side, said as such. The reference for support only when the bank answered: a call that never
 * reached it left it nothing to find.
 */
function outcomeUnknown(result: { reason: 'refused' | 'unreachable'; correlationId: string }, key: TextKey = 'unreachable'): void {
  const words = navigator.onLine ? key : 'offline';
  showLocalProblem(words, result.reason === 'refused' ? result.correlationId : undefined);
}

/** A call answered: a problem the bank's silence left on show is over. */
function bankAnswered(): void {
  const key = state.localProblem?.key;
  if (key === 'unreachable' || key === 'offline' || key === 'withdrawUnreachable') clearProblems();
}

export async function submit(loaded: PageConfig): Promise<void> {
  // A request is in progress on this contract: another submit only points at it.
  if (state.formState === 'done') {
    resultSection.focus();
    return;
  }
  if (state.formState !== 'ready') return;
  clearProblems();
  state.notice = undefined;
  renderNotice();
  if (!checkAll()) return;
  setFormState('sending');
  const contractId = chosenContractId();
  let settle: () => void = () => setFormState('ready');
  // Where the focus goes once the outcome is on show: never left on a button that is gone.
  let resultFocus: (() => void) | undefined;
  try {
    const input = readInput();
    const sent = JSON.stringify([contractId, input]);
    const pending = state.unsettled?.form === sent ? state.unsettled : undefined;
    const action = pending?.action ?? newAction();
    const since = pending?.since ?? Date.now();
    state.unsettled = undefined;
    const result = await client(loaded).createTerminationRequest(contractId, input, action);
    // How many calls the client made for this action (its retries included): for support and tests.
    form.dataset['attempts'] = String(result.attempts);
    if (result.ok) {
      remember(contractId, result.value);
      state.shown = { contractId, requestId: result.value.requestId, made: true };
      renderPanel();
      // The request as the bank now has it (its current status), in the page's language, and the list with it.
      const fetched = await client(loaded).getTerminationRequest(contractId, result.value.requestId);
      if (fetched.ok) remember(contractId, fetched.value);
      await refreshRequests(loaded);
      settle = () => {
        setFormState('done');
        syncForm();
        resultSection.focus();
      };
    } else if (result.reason === 'refused' && result.error.errorCode === 'ACTIVE_REQUEST_ALREADY_EXISTS') {
      // Another tab or device made one meanwhile: show that request, and say so once, in the customer's words.
      settle = () => void showHolder(loaded, contractId);
    } else if (result.reason === 'unreachable' || RETRIED_STATUSES.has(result.status)) {
      state.unsettled = { contractId, form: sent, action, since };
      outcomeUnknown(result);
      resultFocus = () => generalError.focus();
      // The write may have been made though its answer was lost: the list, read now and on every refresh, shows it if so.
      settle = () => {
        setFormState('ready');
        void refreshRequests(loaded);
      };
    } else {
      resultFocus = () => showRefusal(result.error);
    }
  } catch (error) {
    console.error(error);
    showLocalProblem('unexpected');
    resultFocus = () => generalError.focus();
  } finally {
    state.formState = 'ready';
    settle();
    // After the form is ready again (a disabled control takes no focus).
    resultFocus?.();
  }
}

/** After a 409: the request that holds the contract, read from the list, shown in the panel with one line that says why. */
async function showHolder(loaded: PageConfig, contractId: string): Promise<void> {
  setFormState('loading');
  await refreshRequests(loaded);
  const holder = activeRequestOf(contractId);
  state.notice =
    holder === undefined ? { key: 'activeConflictUnseen' } : { key: 'activeConflict', values: { number: holder.requestNumber } };
  if (state.formState === 'loading') setFormState('ready');
  syncForm();
  notice.focus();
}

/** The first page of the contract's requests, or (more) the next one after those on show. */
export async function loadRequests(loaded: PageConfig, contractId: string, more = false): Promise<void> {
  const before = more && state.listed?.contractId === contractId ? state.listed.ids : [];
  const cursor = more && state.listed?.contractId === contractId ? state.listed.nextCursor : undefined;
  state.listEnded = false;
  await readList(loaded, contractId, { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }, before);
  // A full page carries a cursor (0015-reading-requests.md): the next one may be empty, which is said.
  if (more && state.listed?.contractId === contractId && state.listed.ids.length === before.length) {
    state.listEnded = true;
    renderRequests();
  }
}

/**
 * The contracts as the personal account's back end has them now (the contracts service closes a
 * contract once its termination is done); as last read when they cannot be read.
 */
async function refreshContracts(loaded: PageConfig): Promise<void> {
  const fresh = await loadConfig().catch(() => undefined);
  if (fresh === undefined || JSON.stringify(fresh.contracts) === JSON.stringify(loaded.contracts)) return;
  loaded.contracts = fresh.contracts;
  renderContracts(fresh.contracts);
}

/** The requests on show, and the contracts, read again: statuses change without a reload (the bank decides meanwhile). */
export async function refreshRequests(loaded: PageConfig): Promise<void> {
  await refreshContracts(loaded);
  const contractId = chosenContractId();
  if (contractId === '') return;
  const shown = state.listed?.contractId === contractId ? state.listed.ids.length : 0;
  await readList(loaded, contractId, { limit: rereadSize(shown) }, []);
}

async function readList(loaded: PageConfig, contractId: string, page: { limit: number; cursor?: string }, before: string[]): Promise<void> {
  const asked = ++state.listGeneration;
  const result = await client(loaded).listTerminationRequests(contractId, page);
  // Only the newest read of the list is shown: an older answer (another contract, a refresh that
  // started before a withdrawal) would show what is no longer so.
  if (asked !== state.listGeneration || chosenContractId() !== contractId) return;
  // The list could not be read before: the bank was out of reach for reads too.
  const wasOut = state.listStale || state.listFailed === contractId;
  if (!result.ok) {
    // Said where the list would be; what was on show stays, as it was last read, and says so.
    if (state.listed?.contractId !== contractId) state.listFailed = contractId;
    else state.listStale = true;
  } else {
    const { items, nextCursor, nextRequestAllowedAt } = result.value;
    for (const request of items) remember(contractId, request);
    state.listFailed = undefined;
    state.listStale = false;
    state.listed = { contractId, ids: [...before, ...items.map((r) => r.requestId)], ...(nextCursor === undefined ? {} : { nextCursor }) };
    // The API says when the next request is possible while the limit holds: the page copies no rule of it.
    if (page.cursor === undefined) {
      if (nextRequestAllowedAt === undefined) state.nextRequestAllowedAt.delete(contractId);
      else state.nextRequestAllowedAt.set(contractId, nextRequestAllowedAt);
    }
    // The outage is over once a call that failed in it succeeds again.
    if (wasOut) bankAnswered();
  }
  syncForm();
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

/**
 * One user action: withdraw a request, after the customer confirms. Its key is kept until the
 * outcome is known. `from` is where the customer pressed: the focus goes back there, or to the
 * notice that confirms the withdrawal when that place is gone.
 */
export async function withdraw(loaded: PageConfig, requestId: string, requestNumber: string, from: 'list' | 'panel'): Promise<void> {
  const contractId = chosenContractId();
  const back = () =>
    from === 'list' ? focusRequest(requestId) : resultSection.hidden ? notice.focus() : byId('result-withdraw', HTMLElement).focus();
  if (contractId === '' || withdrawing.has(requestId)) return;
  if (!(await confirmWithdrawal(requestNumber))) {
    back();
    return;
  }
  clearProblems();
  withdrawing.add(requestId);
  renderRequests();
  renderPanel();
  back();
  const action = withdrawActions.get(requestId) ?? newAction();
  withdrawActions.set(requestId, action);
  try {
    const result = await client(loaded).withdrawTerminationRequest(contractId, requestId, action);
    if (result.ok) {
      withdrawActions.delete(requestId);
      const known = requestOf(requestId);
      if (known !== undefined) remember(contractId, { ...known, status: result.value.status, message: result.value.message });
    } else if (result.reason === 'unreachable' || RETRIED_STATUSES.has(result.status)) {
      outcomeUnknown(result, 'withdrawUnreachable');
    } else {
      withdrawActions.delete(requestId);
      showRefusal(result.error);
    }
  } catch (error) {
    console.error(error);
    showLocalProblem('unexpected');
  } finally {
    withdrawing.delete(requestId);
    syncForm();
    await refreshRequests(loaded);
    back();
  }
}

/** The form's reasons, from the API in the page's language: the list the create itself accepts. True once they are in. */
export async function loadReasons(loaded: PageConfig): Promise<boolean> {
  const asked = state.language;
  const reasons = await client(loaded).listTerminationReasons();
  if (!reasons.ok) {
    // Without reasons there is no form to fill: said as the bank's problem, with a retry.
    if (state.reasonChoices.length === 0) state.loadProblem = 'dataFailed';
    applyLanguage();
    return false;
  }
  // Another language may have been chosen meanwhile: its own call renders it.
  if (asked !== state.language) return true;
  state.reasonChoices = reasons.value.items.map(({ reasonCode, label, commentRequired: required }) => ({
    reasonCode,
    label,
    commentRequired: required,
  }));
  state.loadProblem = undefined;
  applyLanguage();
  return true;
}

/** The request in the panel read again (its message in a new language). */
export async function refreshShown(loaded: PageConfig): Promise<void> {
  if (!state.shown) return;
  const { contractId, requestId } = state.shown;
  const fetched = await client(loaded).getTerminationRequest(contractId, requestId);
  if (fetched.ok) remember(contractId, fetched.value);
  syncForm();
}
