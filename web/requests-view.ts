import type { TerminationRequest } from '../client/index.ts';
import { WITHDRAWABLE_STATUSES } from '../lib/termination/lifecycle.ts';
import { formatMoment } from './dates.ts';
import {
  byId,
  moreButton,
  notice,
  requestsEmpty,
  requestsEnd,
  requestsFailed,
  requestsList,
  requestsStale,
  resultSection,
  resultWithdraw,
} from './elements.ts';
import { apiText, paragraph, requestItem, span, statusLabel } from './render.ts';
import { detailsDisclosure } from './request-details.ts';
import { requestOf, state, t, withdrawing } from './state.ts';
import type { TextKey } from './texts.ts';

/*
 * The requests as the page knows them (state.ts holds each once): the panel with the chosen
 * contract's request in progress, the contract's list, and the notice that says what just
 * happened to one. All three are drawn from the same record, so they never disagree.
 */

/** The withdrawable statuses are the domain's own rule (docs/decisions/0018-withdrawal.md), bundled into the page. */
const withdrawable = (request: TerminationRequest) => WITHDRAWABLE_STATUSES.includes(request.status);

/** The bank's words (a reason, a note), as it wrote them: marked as its own, in the language it wrote them in. */
function bankWords(request: TerminationRequest, reason: string): HTMLParagraphElement {
  const key: TextKey = request.status === 'REJECTED' ? 'bankReason' : 'bankNote';
  const quote = document.createElement('q');
  quote.className = 'bank-words';
  // Plain text, never HTML (docs/clients.md); its language told apart so that a reader voices it right.
  quote.textContent = reason;
  quote.lang = /\p{Script=Cyrillic}/u.test(reason) ? 'ru' : 'en';
  return paragraph('reason', span('reason-label', t(key)), ' ', quote);
}

/**
 * The panel: the chosen contract's request in progress, instead of the form. Its title says
 * whether this page just made it or found it; its status is the one the page knows now.
 */
export function renderPanel(): void {
  const request = state.shown === undefined ? undefined : requestOf(state.shown.requestId);
  resultSection.hidden = request === undefined;
  if (request === undefined || state.shown === undefined) return;
  byId('result-title', HTMLElement).textContent = t(state.shown.made ? PANEL_TITLES[request.status] : 'heldTitle', {
    number: request.requestNumber,
  });
  byId('result-held', HTMLElement).hidden = state.shown.made;
  byId('result-number', HTMLElement).replaceChildren(span('nowrap', request.requestNumber));
  byId('result-status', HTMLElement).textContent = statusLabel(request);
  byId('result-message', HTMLElement).replaceChildren(...apiText(request.message));
  resultWithdraw.hidden = !withdrawable(request);
  resultWithdraw.dataset['requestId'] = request.requestId;
  resultWithdraw.dataset['requestNumber'] = request.requestNumber;
  const busy = withdrawing.has(request.requestId);
  resultWithdraw.disabled = busy;
  resultWithdraw.textContent = busy ? t('withdrawing') : t('withdraw');
  resultWithdraw.setAttribute('aria-label', t('withdrawThis'));
}

/**
 * The panel's title for a request this page made, by its status (the panel shows requests in
 * progress only); a final status's is also the notice that says the request ended (form.ts).
 */
export const PANEL_TITLES: Record<TerminationRequest['status'], TextKey> = {
  SUBMITTED: 'resultTitle',
  IN_REVIEW: 'resultInReview',
  APPROVED: 'resultApproved',
  COMPLETED: 'completed',
  REJECTED: 'rejected',
  WITHDRAWN: 'withdrawn',
};

/** What just happened, once, in words; after a request ended, that a new one can be made, when the form is there for it. */
export function renderNotice(): void {
  if (state.notice === undefined) {
    notice.textContent = '';
    return;
  }
  const ended = state.notice.key === 'withdrawn' || state.notice.key === 'rejected';
  const next = ended && state.formState === 'ready' ? ` ${t('newRequestPossible')}` : '';
  notice.textContent = `${t(state.notice.key, state.notice.values)}${next}`;
}

/**
 * One request: its number, status, the day it was sent and, when the bank gave one, its words,
 * once (the API's message says the same and is not repeated here).
 */
function renderRequest(request: TerminationRequest): HTMLLIElement {
  const status = paragraph('status', `${t('status')}: `, span('status-label', statusLabel(request)));
  const item = requestItem(request, status, paragraph('sent', t('sentOn', { date: formatMoment(request.createdAt) })));
  if (request.statusReason !== undefined) item.append(bankWords(request, request.statusReason));
  if (withdrawable(request)) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'withdraw secondary';
    button.dataset['requestId'] = request.requestId;
    button.dataset['requestNumber'] = request.requestNumber;
    const busy = withdrawing.has(request.requestId);
    button.disabled = busy;
    button.textContent = busy ? t('withdrawing') : t('withdraw');
    button.setAttribute('aria-label', t('withdrawLabel', { number: request.requestNumber }));
    item.append(button);
  }
  if (state.listed !== undefined) item.append(detailsDisclosure(state.listed.contractId, request));
  return item;
}

export function renderRequests(): void {
  const requests = (state.listed?.ids ?? []).map(requestOf).filter((request) => request !== undefined);
  const failed = state.listed === undefined && state.listFailed !== undefined;
  requestsFailed.hidden = !failed;
  // "None yet" only from a list that was read: a list that could not be read again says so instead.
  requestsEmpty.hidden = state.listed === undefined || requests.length > 0 || state.listStale;
  requestsStale.hidden = !state.listStale;
  requestsEnd.hidden = !state.listEnded;
  moreButton.hidden = state.listed?.nextCursor === undefined;
  // A refresh draws the list anew: the focus stays on the request it was on.
  const focused =
    document.activeElement instanceof HTMLElement && requestsList.contains(document.activeElement) ? document.activeElement : null;
  const focusedRequest = focused?.closest('li')?.dataset['requestId'];
  requestsList.replaceChildren(...requests.map(renderRequest));
  if (focusedRequest !== undefined) focusRequest(focusedRequest);
}

/** Focus back where the customer was in the list: the request's button, or its title once it has none. */
export function focusRequest(requestId: string): void {
  const item = [...requestsList.children].find((child) => child instanceof HTMLElement && child.dataset['requestId'] === requestId);
  const target = item?.querySelector('button.withdraw') ?? item?.querySelector('h3');
  if (target instanceof HTMLElement) target.focus();
}
