import type { TerminationRequest } from '../client/index.ts';
import type { ContractChoice } from './config.ts';
import { formatDay, formatMoment, inputDay, dayInDays, withLocalDays } from './dates.ts';
import {
  byId,
  contractRadios,
  contractsBox,
  chosenContractId,
  generalError,
  moreButton,
  requestsEmpty,
  requestsList,
  resultSection,
  submitButton,
} from './elements.ts';
import { ACCOUNT_DIGITS, BIK_DIGITS } from './fields.ts';
import { WITHDRAWABLE_STATUSES } from '../lib/termination/lifecycle.ts';
import { state, t, withdrawing } from './state.ts';
import { STATUS_LABELS, type TextKey } from './texts.ts';

/* Drawing what the page knows: contracts, the request on show, the list, and the page's own words. */

export function span(className: string, text: string): HTMLSpanElement {
  const element = document.createElement('span');
  element.className = className;
  element.textContent = text;
  return element;
}

export function paragraph(className: string, ...content: (string | Node)[]): HTMLParagraphElement {
  const p = document.createElement('p');
  p.className = className;
  p.append(...content);
  return p;
}

/**
 * Text from the API with its dates as the customer reads them, and each hyphenated word (a
 * request number, TR-XXXX-XXXX) kept on one line: a number broken at its hyphen reads as two.
 */
export function apiText(text: string): (string | HTMLSpanElement)[] {
  const parts: (string | HTMLSpanElement)[] = [];
  let last = 0;
  const local = withLocalDays(text);
  for (const match of local.matchAll(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu)) {
    parts.push(local.slice(last, match.index), span('nowrap', match[0]));
    last = match.index + match[0].length;
  }
  parts.push(local.slice(last));
  return parts.filter((part) => part !== '');
}

/** A text of the page with a request number in it, the number on one line. */
export function withNumber(key: TextKey, number: string): (string | HTMLSpanElement)[] {
  const [before = '', after = ''] = t(key).split('{number}');
  return [before, span('nowrap number', number), after].filter((part) => part !== '');
}

export function renderOptions(select: HTMLSelectElement, options: { value: string; label: string }[]): void {
  const selected = select.value;
  select.replaceChildren(...options.map(({ value, label }) => new Option(label, value)));
  if (options.some((option) => option.value === selected)) select.value = selected;
}

export const isAvailable = (contract: ContractChoice) => contract.status === 'ACTIVE';

function contractState(contract: ContractChoice): string {
  if (contract.status === 'ACTIVE')
    return contract.endDate ? t('contractActiveUntil', { date: formatDay(contract.endDate) }) : t('contractActive');
  return contract.status === 'CLOSED' ? t('contractClosed') : t('contractInactive');
}

/** Each contract as the customer knows it: product, masked number, and whether and until when it runs. */
export function renderContracts(contracts: ContractChoice[]): void {
  const chosen = chosenContractId() || contracts.find(isAvailable)?.contractId || contracts[0]?.contractId;
  // Drawn anew in another language: the focus stays on the contract it was on.
  const focused = contractRadios().find((radio) => radio === document.activeElement)?.value;
  contractsBox.replaceChildren(
    ...contracts.map((contract) => {
      const label = document.createElement('label');
      label.className = 'contract';
      label.dataset['contractId'] = contract.contractId;
      label.dataset['available'] = String(isAvailable(contract));
      const radio = document.createElement('input');
      radio.type = 'radio';
      radio.name = 'contract';
      radio.value = contract.contractId;
      radio.checked = contract.contractId === chosen;
      radio.disabled = state.formState === 'sending';
      radio.setAttribute('aria-describedby', 'contract-error');
      const text = document.createElement('span');
      text.className = 'contract-text';
      const name = span('contract-name', contract.product[state.language]);
      name.append(' ', span('contract-number', contract.maskedNumber));
      text.append(name, span('contract-state', contractState(contract)));
      if (!isAvailable(contract))
        text.append(span('contract-why', t(contract.status === 'CLOSED' ? 'contractClosedWhy' : 'contractInactiveWhy')));
      label.append(radio, text);
      return label;
    }),
  );
  contractRadios()
    .find((radio) => radio.value === focused)
    ?.focus();
}

export function renderResult(request: TerminationRequest): void {
  byId('result-number', HTMLElement).replaceChildren(span('nowrap', request.requestNumber));
  byId('result-status', HTMLElement).textContent = STATUS_LABELS[request.status][state.language];
  byId('result-message', HTMLElement).replaceChildren(...apiText(request.message));
  resultSection.hidden = false;
}

/**
 * One request: its number, status, the day it was sent and, when the bank gave one, its reason,
 * once (the API's message says the same and is not repeated here).
 */
function renderRequest(request: TerminationRequest): HTMLLIElement {
  const item = document.createElement('li');
  item.dataset['requestId'] = request.requestId;
  item.dataset['status'] = request.status;
  const title = document.createElement('h3');
  title.tabIndex = -1;
  title.append(...withNumber('request', request.requestNumber));
  const status = paragraph('status', `${t('status')}: `, span('status-label', STATUS_LABELS[request.status][state.language]));
  item.append(title, status, paragraph('sent', t('sentOn', { date: formatMoment(request.createdAt) })));
  if (request.statusReason !== undefined) {
    const key: TextKey = request.status === 'REJECTED' ? 'rejectionReason' : 'bankNote';
    // The API's words are plain text: never HTML (docs/clients.md).
    item.append(paragraph('reason', t(key, { reason: request.statusReason })));
  }
  // The domain's own rule (docs/decisions/0018-withdrawal.md), bundled into the page.
  if (WITHDRAWABLE_STATUSES.includes(request.status)) {
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
  return item;
}

export function renderRequests(): void {
  const requests = state.listed?.requests ?? [];
  requestsEmpty.hidden = state.listed === undefined || requests.length > 0;
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

export function renderGeneral(lines: (string | HTMLSpanElement)[][], correlationId?: string): void {
  const paragraphs = lines.map((line) => paragraph('', ...line));
  if (correlationId !== undefined) paragraphs.push(paragraph('reference', t('reference', { id: correlationId })));
  generalError.replaceChildren(...paragraphs);
}

export function renderHints(): void {
  byId('date-hint', HTMLElement).textContent = t('dateHint', { example: inputDay(dayInDays(30)) });
  byId('bik-hint', HTMLElement).textContent = t('bikHint', { digits: BIK_DIGITS });
  byId('account-hint', HTMLElement).textContent = t('accountHint', { digits: ACCOUNT_DIGITS });
}

export function renderSubmit(): void {
  submitButton.disabled = state.formState !== 'ready';
  submitButton.textContent = state.formState === 'sending' ? t('sending') : state.formState === 'done' ? t('sent') : t('submit');
}
