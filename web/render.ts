import type { TerminationRequest } from '../client/index.ts';
import type { ContractChoice, DocumentChoice } from './config.ts';
import { formatDay, inputDay, dayInDays, withLocalDays } from './dates.ts';
import {
  byId,
  commentLabel,
  commentInput,
  contractRadios,
  contractsBox,
  chosenContractId,
  chosenReason,
  customers,
  documentBoxes,
  documentsBox,
  documentsField,
  generalError,
  loadProblem,
  reasonRadios,
  reasonsBox,
  submitButton,
} from './elements.ts';
import { ACCOUNT_DIGITS, BIK_DIGITS } from '../lib/api-model/schemas.ts';
import { fieldsLocked, state, t } from './state.ts';
import { STATUS_LABELS, type TextKey } from './texts.ts';

/* Drawing what the page knows: contracts, the page's own words and problems, the form's labels (requests: requests-view.ts). */

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
  // "№" and "No." stay with the number they name.
  for (const match of local.matchAll(/(?:(?:№|No\.)\s)?[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu)) {
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

/** A request's status in the page's language. */
export const statusLabel = (request: TerminationRequest): string => STATUS_LABELS[request.status][state.language];

/**
 * A request as a list shows it: its id and status as data, its numbered title (focusable, for
 * the focus to return to), then `parts`.
 */
export function requestItem(request: TerminationRequest, ...parts: HTMLElement[]): HTMLLIElement {
  const item = document.createElement('li');
  item.dataset['requestId'] = request.requestId;
  item.dataset['status'] = request.status;
  const title = document.createElement('h3');
  title.tabIndex = -1;
  title.append(...withNumber('request', request.requestNumber));
  item.append(title, ...parts);
  return item;
}

/** One choice among several: a radio or a box, its name and value, inside the label that holds its words. */
function choice(
  className: string,
  box: { type: 'radio' | 'checkbox'; name: string; value: string; checked: boolean; disabled: boolean; describedBy: string },
  words: HTMLElement,
): HTMLLabelElement {
  const label = document.createElement('label');
  label.className = className;
  const input = document.createElement('input');
  input.type = box.type;
  input.name = box.name;
  input.value = box.value;
  input.checked = box.checked;
  input.disabled = box.disabled;
  input.setAttribute('aria-describedby', box.describedBy);
  label.append(input, words);
  return label;
}

/**
 * The reasons the API offers, each a radio labelled in the page's language, its words wrapping at
 * any width (a select's options cannot). None is chosen for the customer; a redraw in another
 * language keeps the one chosen, and the focus on it.
 */
export function renderReasons(reasons: { reasonCode: string; label: string }[]): void {
  const chosen = chosenReason();
  const focused = reasonRadios().find((radio) => radio === document.activeElement)?.value;
  reasonsBox.replaceChildren(
    ...reasons.map(({ reasonCode, label }) =>
      choice(
        'choice',
        {
          type: 'radio',
          name: 'reason',
          value: reasonCode,
          checked: reasonCode === chosen,
          disabled: fieldsLocked(state.formState),
          describedBy: 'reason-error',
        },
        span('choice-text', label),
      ),
    ),
  );
  reasonRadios()
    .find((radio) => radio.value === focused)
    ?.focus();
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
      const text = document.createElement('span');
      text.className = 'contract-text';
      const name = span('contract-name', contract.product[state.language]);
      name.append(' ', span('contract-number', contract.maskedNumber));
      text.append(name, span('contract-state', contractState(contract)));
      if (!isAvailable(contract))
        text.append(span('contract-why', t(contract.status === 'CLOSED' ? 'contractClosedWhy' : 'contractInactiveWhy')));
      const label = choice(
        'contract',
        {
          type: 'radio',
          name: 'contract',
          value: contract.contractId,
          checked: contract.contractId === chosen,
          disabled: state.formState === 'sending',
          describedBy: 'contract-error',
        },
        text,
      );
      label.dataset['contractId'] = contract.contractId;
      label.dataset['available'] = String(isAvailable(contract));
      return label;
    }),
  );
  contractRadios()
    .find((radio) => radio.value === focused)
    ?.focus();
}

/** The customer's uploaded documents, each a box labelled with its file name; the field is hidden when there are none. */
export function renderDocuments(documents: DocumentChoice[]): void {
  const chosen = new Set(documentBoxes().flatMap((box) => (box.checked ? [box.value] : [])));
  documentsField.hidden = documents.length === 0;
  documentsBox.replaceChildren(
    ...documents.map(({ documentId, fileName }) =>
      choice(
        'document',
        {
          type: 'checkbox',
          name: 'document',
          value: documentId,
          checked: chosen.has(documentId),
          disabled: fieldsLocked(state.formState),
          describedBy: 'documents-error',
        },
        span('document-name', fileName),
      ),
    ),
  );
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

/** The comment's label says "(optional)" only while the reason chosen does not need one. */
export function renderCommentLabel(required: boolean): void {
  commentLabel.textContent = t(required ? 'commentNeeded' : 'comment');
  commentInput.setAttribute('aria-required', String(required));
}

/** What the page could not load, with a button to try again; nothing when all is loaded. */
export function renderLoadProblem(): void {
  loadProblem.hidden = state.loadProblem === undefined;
  byId('load-problem-text', HTMLElement).textContent = state.loadProblem === undefined ? '' : t(state.loadProblem);
}

/** The demo's switch between its customers, each a link to the page as that customer: two tabs show two side by side. */
export function renderCustomers(): void {
  const list = state.config?.customers ?? [];
  customers.hidden = list.length < 2;
  byId('customers-links', HTMLElement).replaceChildren(
    ...list.map(({ id, name }) => {
      const link = document.createElement('a');
      link.href = `?customer=${encodeURIComponent(id)}`;
      link.textContent = name[state.language];
      if (id === state.config?.customer) link.setAttribute('aria-current', 'page');
      return link;
    }),
  );
}
