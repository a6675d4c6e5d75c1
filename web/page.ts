import { createTerminationClient, type ClientOptions, type TerminationRequest, type TerminationRequestInput } from '../client/index.ts';
import {
  ACCOUNT_DIGITS,
  BIK_DIGITS,
  checkComment,
  checkDate,
  checkDigits,
  checkRecipientName,
  parseDate,
  withoutSpaces,
  type FieldProblem,
  type Moment,
} from './fields.ts';

/*
 * The personal account's termination form: a plain page over the typed client (client/), which
 * is all it knows of the API. One user action is one Idempotency-Key: the submit button is
 * disabled while a call is in flight, a submit of the very same form after an answer that never
 * came (or one worth retrying) reuses the key, so the bank records the request once, and after a
 * 201 the form is done (locked, the answer kept on screen) until the customer picks another
 * contract. Served by scripts/local/page-server.ts, which also serves /config.json: the API's
 * address, the token, and the customer's contracts as the personal account knows them (product
 * name, masked number, status, end date), which the API does not own and never answers with.
 */

type Language = NonNullable<ClientOptions['language']>;
type Reason = TerminationRequestInput['reasonCode'];
type Status = TerminationRequest['status'];

interface ContractChoice {
  contractId: string;
  status: string;
  endDate?: string;
  /** The product as the customer knows it, in each language ("Mortgage"). */
  product: Record<Language, string>;
  /** The contract's number with all but its end hidden ("•• 4821"). */
  maskedNumber: string;
}

interface PageConfig {
  apiUrl: string;
  token: string;
  customerId: string;
  contracts: ContractChoice[];
  /** Bank details to start the form with (the demo's, so one click submits). */
  bankDetails?: { bik: string; accountNumber: string; recipientName: string };
  /** How often the list of requests is read again (seconds). */
  refreshSeconds: number;
}

interface Problem {
  field: string;
  reason: string;
}

// ---- texts ---------------------------------------------------------------------------------

/** The reasons the API offers, labelled in the page's language (GET /api/v1/termination-reasons). */
let reasonChoices: { reasonCode: Reason; label: string; commentRequired: boolean }[] = [];

// Russian says "заявка" for a request everywhere, as the API's own texts do.
const STATUS_LABELS: Record<Status, Record<Language, string>> = {
  SUBMITTED: { en: 'Submitted', ru: 'Подана' },
  IN_REVIEW: { en: 'In review', ru: 'На рассмотрении' },
  APPROVED: { en: 'Approved', ru: 'Одобрена' },
  COMPLETED: { en: 'Completed', ru: 'Исполнена' },
  REJECTED: { en: 'Rejected', ru: 'Отклонена' },
  WITHDRAWN: { en: 'Withdrawn', ru: 'Отозвана' },
};

/** Examples in the errors: a BIK and an account number that go together. */
const EXAMPLE_BIK = '044525225';
const EXAMPLE_ACCOUNT = '40817810700000000001';

const EN = {
  title: 'Early termination of a contract',
  intro: 'Ask the bank to terminate one of your contracts ahead of its term.',
  contract: 'Contract',
  reason: 'Reason',
  date: 'Desired termination date',
  dateHint: 'Day/month/year, e.g. {example}',
  bankDetails: 'Where to pay the balance',
  bik: 'BIK',
  bikHint: '{digits} digits',
  account: 'Account number',
  accountHint: '{digits} digits',
  recipient: 'Recipient name',
  comment: 'Comment (optional)',
  submit: 'Submit request',
  sending: 'Sending…',
  sent: 'Request sent',
  resultTitle: 'Request submitted',
  requestNumber: 'Request number',
  request: 'Request {number}',
  status: 'Status',
  sentOn: 'Sent on {date}',
  contractActive: 'Active',
  contractActiveUntil: 'Active until {date}',
  contractClosed: 'Closed',
  contractInactive: 'Not active',
  contractClosedWhy: 'Not available: the contract is already closed.',
  contractInactiveWhy: 'Not available: the contract is not active.',
  contractNote: 'This contract cannot be terminated: it is not active. Its earlier requests, if any, are listed below.',
  fixFields: 'Some fields need correcting: see the messages beside them.',
  unreachable: 'The bank could not be reached. Check your connection and press "Submit request" again: the request will not be made twice.',
  unexpected: 'Something went wrong on this page. Reload it and try again.',
  loadFailed: 'The page could not load its settings. Reload it to try again.',
  reference: 'Reference for support: {id}',
  requestsTitle: 'My requests on this contract',
  requestsEmpty: 'No requests on this contract yet.',
  more: 'Show more',
  rejectionReason: 'Reason: {reason}',
  bankNote: 'Note from the bank: {reason}',
  withdraw: 'Withdraw',
  withdrawLabel: 'Withdraw request {number}',
  withdrawing: 'Withdrawing…',
  withdrawTitle: 'Withdraw request {number}?',
  withdrawText: 'The bank will stop handling it. This cannot be undone.',
  withdrawCancel: 'Keep the request',
  withdrawConfirm: 'Withdraw',
  withdrawUnreachable: 'The bank could not be reached. Press "Withdraw" again: the request will be withdrawn once.',
  // Field problems, in the customer's words, with an example.
  bikRequired: 'Enter the BIK: {digits} digits, e.g. {example}.',
  bikDigitsOnly: 'Use digits only: the BIK is {digits} digits, e.g. {example}.',
  bikDigitCount: 'The BIK is {digits} digits, e.g. {example}; you have entered {entered}.',
  accountRequired: 'Enter the account number: {digits} digits, e.g. {example}.',
  accountDigitsOnly: 'Use digits only: the account number is {digits} digits, e.g. {example}.',
  accountDigitCount: 'The account number is {digits} digits, e.g. {example}; you have entered {entered}.',
  accountMismatch: 'This account number does not go with the BIK: check both against your bank details.',
  recipientRequired: "Enter the recipient's name, e.g. Anna Ivanova.",
  recipientNoLetter: 'The name needs letters, e.g. Anna Ivanova.',
  tooLong: 'At most {max} characters; you have entered {entered}.',
  hiddenCharacters: 'The text holds invisible characters (copied text often does): please type it again.',
  commentRequired: 'For this reason, please say in a few words what it is, e.g. "I am moving abroad".',
  dateRequired: 'Enter the date, e.g. {example}.',
  dateFormat: 'Enter the date as day/month/year, e.g. {example}.',
  dateBeforeToday: 'Choose today ({today}) or a later date.',
  dateAfterEnd: 'The contract ends on {endDate}: choose that day or an earlier one.',
  contractNotActive: 'This contract is no longer active, so it cannot be terminated.',
};
type TextKey = keyof typeof EN;
const isTextKey = (value: string): value is TextKey => Object.hasOwn(EN, value);

const TEXTS: Record<Language, Record<TextKey, string>> = {
  en: EN,
  ru: {
    title: 'Досрочное расторжение договора',
    intro: 'Попросите банк расторгнуть один из ваших договоров досрочно.',
    contract: 'Договор',
    reason: 'Причина',
    date: 'Желаемая дата расторжения',
    dateHint: 'День.месяц.год, например {example}',
    bankDetails: 'Куда перечислить остаток',
    bik: 'БИК',
    bikHint: '{digits} цифр',
    account: 'Номер счёта',
    accountHint: '{digits} цифр',
    recipient: 'Получатель',
    comment: 'Комментарий (необязательно)',
    submit: 'Отправить заявку',
    sending: 'Отправляем…',
    sent: 'Заявка отправлена',
    resultTitle: 'Заявка принята',
    requestNumber: 'Номер заявки',
    request: 'Заявка {number}',
    status: 'Статус',
    sentOn: 'Отправлена {date}',
    contractActive: 'Действует',
    contractActiveUntil: 'Действует до {date}',
    contractClosed: 'Закрыт',
    contractInactive: 'Не действует',
    contractClosedWhy: 'Недоступен: договор уже закрыт.',
    contractInactiveWhy: 'Недоступен: договор не действует.',
    contractNote: 'Этот договор нельзя расторгнуть: он не действует. Прежние заявки по нему, если они были, показаны ниже.',
    fixFields: 'Некоторые поля нужно исправить: подсказки рядом с ними.',
    unreachable:
      'Не удалось связаться с банком. Проверьте соединение и нажмите «Отправить заявку» ещё раз: заявка не будет создана дважды.',
    unexpected: 'На странице произошла ошибка. Обновите её и попробуйте снова.',
    loadFailed: 'Не удалось загрузить настройки страницы. Обновите её, чтобы попробовать снова.',
    reference: 'Номер обращения для поддержки: {id}',
    requestsTitle: 'Мои заявки по этому договору',
    requestsEmpty: 'По этому договору заявок пока нет.',
    more: 'Показать ещё',
    rejectionReason: 'Причина: {reason}',
    bankNote: 'Комментарий банка: {reason}',
    withdraw: 'Отозвать',
    withdrawLabel: 'Отозвать заявку {number}',
    withdrawing: 'Отзываем…',
    withdrawTitle: 'Отозвать заявку {number}?',
    withdrawText: 'Банк прекратит её рассмотрение. Отменить это нельзя.',
    withdrawCancel: 'Оставить заявку',
    withdrawConfirm: 'Отозвать',
    withdrawUnreachable: 'Не удалось связаться с банком. Нажмите «Отозвать» ещё раз: заявка будет отозвана один раз.',
    bikRequired: 'Укажите БИК: {digits} цифр, например {example}.',
    bikDigitsOnly: 'Только цифры: в БИК {digits} цифр, например {example}.',
    bikDigitCount: 'В БИК {digits} цифр, например {example}, а введено {entered}.',
    accountRequired: 'Укажите номер счёта: {digits} цифр, например {example}.',
    accountDigitsOnly: 'Только цифры: в номере счёта {digits} цифр, например {example}.',
    accountDigitCount: 'В номере счёта {digits} цифр, например {example}, а введено {entered}.',
    accountMismatch: 'Номер счёта не подходит к этому БИК: сверьте оба с реквизитами вашего банка.',
    recipientRequired: 'Укажите получателя, например Анна Иванова.',
    recipientNoLetter: 'В имени нужны буквы, например Анна Иванова.',
    tooLong: 'Не больше {max} символов, а введено {entered}.',
    hiddenCharacters: 'В тексте есть невидимые символы (так бывает при копировании): введите его заново.',
    commentRequired: 'Для этой причины опишите её в нескольких словах, например «Переезжаю за границу».',
    dateRequired: 'Укажите дату, например {example}.',
    dateFormat: 'Введите дату в виде ДД.ММ.ГГГГ, например {example}.',
    dateBeforeToday: 'Выберите сегодняшнюю дату ({today}) или более позднюю.',
    dateAfterEnd: 'Договор заканчивается {endDate}: выберите эту дату или более раннюю.',
    contractNotActive: 'Договор уже не действует, его нельзя расторгнуть.',
  },
};

// ---- dates ---------------------------------------------------------------------------------

const LOCALES: Record<Language, string> = { en: 'en-GB', ru: 'ru-RU' };

/** A day to read: "25 Dec 2026" in English, "25.12.2026" in Russian. */
function formatDay(isoDay: string): string {
  const [year = 0, month = 1, day = 1] = isoDay.split('-').map(Number);
  const options: Intl.DateTimeFormatOptions =
    language === 'ru' ? { day: '2-digit', month: '2-digit', year: 'numeric' } : { day: 'numeric', month: 'short', year: 'numeric' };
  return new Intl.DateTimeFormat(LOCALES[language], { ...options, timeZone: 'UTC' }).format(new Date(Date.UTC(year, month - 1, day)));
}

/** A moment (ISO 8601) as the day it was where the customer is. */
function formatMoment(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return formatDay(`${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`);
}

/** A day as the customer types it: 25.12.2026 in Russian, 25/12/2026 in English. */
function inputDay(isoDay: string): string {
  const [year = '', month = '', day = ''] = isoDay.split('-');
  return [day, month, year].join(language === 'ru' ? '.' : '/');
}

/** Days from today where the customer is, as YYYY-MM-DD. */
function dayInDays(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The API's texts name days as YYYY-MM-DD: the page shows them as the customer reads dates. */
const withLocalDays = (text: string) => text.replace(/\b(\d{4}-\d{2}-\d{2})\b/g, (day) => formatDay(day));

// ---- the page's elements -------------------------------------------------------------------

function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`The page has no #${id}`);
  return element;
}

const form = byId('termination-form', HTMLFormElement);
const contractsBox = byId('contracts', HTMLElement);
const contractNote = byId('contract-note', HTMLElement);
const reasonSelect = byId('reason', HTMLSelectElement);
const dateInput = byId('date', HTMLInputElement);
const bikInput = byId('bik', HTMLInputElement);
const accountInput = byId('account', HTMLInputElement);
const recipientInput = byId('recipient', HTMLInputElement);
const commentInput = byId('comment', HTMLTextAreaElement);
const submitButton = byId('submit', HTMLButtonElement);
const generalError = byId('general-error', HTMLElement);
const resultSection = byId('result', HTMLElement);
const requestsList = byId('requests-list', HTMLUListElement);
const requestsEmpty = byId('requests-empty', HTMLElement);
const moreButton = byId('requests-more', HTMLButtonElement);
const withdrawDialog = byId('withdraw-dialog', HTMLDialogElement);

/** The form's fields, each with its control and its error text (`<field>-error`). */
type Field = 'contract' | 'reason' | 'date' | 'bik' | 'account' | 'recipient' | 'comment';
const FIELDS: readonly Field[] = ['contract', 'reason', 'date', 'bik', 'account', 'recipient', 'comment'];
const CONTROLS: Record<Exclude<Field, 'contract'>, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement> = {
  reason: reasonSelect,
  date: dateInput,
  bik: bikInput,
  account: accountInput,
  recipient: recipientInput,
  comment: commentInput,
};

/** The fields the customer types in, checked as they type. */
const TYPED = ['date', 'bik', 'account', 'recipient', 'comment'] as const;

/** Which field each path in an error's details names. */
const FIELD_OF = new Map<string, Field>([
  ['contractId', 'contract'],
  ['reasonCode', 'reason'],
  ['desiredTerminationDate', 'date'],
  ['bankDetails.bik', 'bik'],
  ['bankDetails.accountNumber', 'account'],
  ['bankDetails.recipientName', 'recipient'],
  ['comment', 'comment'],
]);

/** The API's refusals the page words itself, beside the field they name. */
const PAGE_WORDS = new Map<string, TextKey>([
  ['BANK_ACCOUNT_KEY_MISMATCH', 'accountMismatch'],
  ['COMMENT_REQUIRED', 'commentRequired'],
  ['CONTRACT_NOT_ACTIVE', 'contractNotActive'],
]);

/** Answers the client retries on its own: after them the outcome is unknown, so the same action keeps its key. */
const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

// ---- state ---------------------------------------------------------------------------------

let language: Language = navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en';
let config: PageConfig | undefined;
/** loading, ready, sending, done (a request was made: the form is locked) or unavailable (the contract is not active). */
type FormState = 'loading' | 'ready' | 'sending' | 'done' | 'unavailable';
let formState: FormState = 'loading';
/** The last action whose outcome is unknown: the form it sent and its keys, reused if that very form is sent again. */
let unsettled: { form: string; action: { idempotencyKey: string; correlationId: string } } | undefined;
/** The request on show, fetched again when the language changes. */
let shown: { contractId: string; request: TerminationRequest } | undefined;
/** The contract's requests on show, newest first, and where the next page starts. */
let listed: { contractId: string; requests: TerminationRequest[]; nextCursor?: string } | undefined;
/** Requests whose withdrawal is in flight, and the key of each withdrawal whose outcome is unknown. */
const withdrawing = new Set<string>();
const withdrawActions = new Map<string, { idempotencyKey: string; correlationId: string }>();
/** Counts the list's reads: an answer is shown only if no later read was asked for since. */
let listGeneration = 0;
/** A page of the list: small, so that "Show more" is met on a demo contract. */
const PAGE_SIZE = 5;
/** Only these can be withdrawn (docs/decisions/0018-withdrawal.md). */
const WITHDRAWABLE: readonly Status[] = ['SUBMITTED', 'IN_REVIEW'];
/** A problem the page itself words (not the API), shown again in a new language. */
let localProblem: { key: TextKey; correlationId?: string } | undefined;
/**
 * What each field's error says: a problem the page found (worded again in a new language), one
 * of the API's refusals the page words itself, or the API's own words where the page has none.
 */
type FieldError = { problem: FieldProblem } | { key: TextKey } | { text: string };
const fieldErrors = new Map<Field, FieldError>();

const t = (key: TextKey, values: Record<string, string | number> = {}): string =>
  TEXTS[language][key].replace(/\{(\w+)\}/g, (match, name: string) => String(values[name] ?? match));

// ---- config --------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseContract(value: unknown): ContractChoice {
  if (!isRecord(value)) throw new Error('config.json: a contract that is not an object');
  const { contractId, status, endDate, product, maskedNumber } = value;
  if (
    typeof contractId !== 'string' ||
    typeof status !== 'string' ||
    typeof maskedNumber !== 'string' ||
    !isRecord(product) ||
    typeof product['en'] !== 'string' ||
    typeof product['ru'] !== 'string'
  ) {
    throw new Error('config.json: a contract needs contractId, status, product (en, ru) and maskedNumber');
  }
  return {
    contractId,
    status,
    product: { en: product['en'], ru: product['ru'] },
    maskedNumber,
    ...(typeof endDate === 'string' ? { endDate } : {}),
  };
}

function parseConfig(value: unknown): PageConfig {
  if (!isRecord(value)) throw new Error('config.json is not an object');
  const { apiUrl, token, customerId, contracts } = value;
  if (typeof apiUrl !== 'string' || typeof token !== 'string' || typeof customerId !== 'string' || !Array.isArray(contracts)) {
    throw new Error('config.json needs apiUrl, token, customerId and contracts');
  }
  const bank = value['bankDetails'];
  const bankDetails =
    isRecord(bank) &&
    typeof bank['bik'] === 'string' &&
    typeof bank['accountNumber'] === 'string' &&
    typeof bank['recipientName'] === 'string'
      ? { bik: bank['bik'], accountNumber: bank['accountNumber'], recipientName: bank['recipientName'] }
      : undefined;
  const refresh = value['refreshSeconds'];
  const refreshSeconds = typeof refresh === 'number' && refresh >= 1 ? refresh : 10;
  return { apiUrl, token, customerId, contracts: contracts.map(parseContract), refreshSeconds, ...(bankDetails ? { bankDetails } : {}) };
}

// ---- contracts -----------------------------------------------------------------------------

const isAvailable = (contract: ContractChoice) => contract.status === 'ACTIVE';

function contractRadios(): HTMLInputElement[] {
  return [...contractsBox.querySelectorAll('input[name="contract"]')].filter((input) => input instanceof HTMLInputElement);
}

function chosenContractId(): string {
  return contractRadios().find((radio) => radio.checked)?.value ?? '';
}

function chosenContract(): ContractChoice | undefined {
  const contractId = chosenContractId();
  return config?.contracts.find((contract) => contract.contractId === contractId);
}

function contractState(contract: ContractChoice): string {
  if (contract.status === 'ACTIVE')
    return contract.endDate ? t('contractActiveUntil', { date: formatDay(contract.endDate) }) : t('contractActive');
  return contract.status === 'CLOSED' ? t('contractClosed') : t('contractInactive');
}

function span(className: string, text: string): HTMLSpanElement {
  const element = document.createElement('span');
  element.className = className;
  element.textContent = text;
  return element;
}

/** Each contract as the customer knows it: product, masked number, and whether and until when it runs. */
function renderContracts(contracts: ContractChoice[]): void {
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
      radio.disabled = formState === 'sending';
      radio.setAttribute('aria-describedby', 'contract-error');
      const text = document.createElement('span');
      text.className = 'contract-text';
      const name = span('contract-name', contract.product[language]);
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

// ---- rendering -----------------------------------------------------------------------------

/**
 * Text from the API with its dates as the customer reads them, and each hyphenated word (a
 * request number, TR-XXXX-XXXX) kept on one line: a number broken at its hyphen reads as two.
 */
function apiText(text: string): (string | HTMLSpanElement)[] {
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
function withNumber(key: TextKey, number: string): (string | HTMLSpanElement)[] {
  const [before = '', after = ''] = t(key).split('{number}');
  return [before, span('nowrap number', number), after].filter((part) => part !== '');
}

function renderOptions(select: HTMLSelectElement, options: { value: string; label: string }[]): void {
  const selected = select.value;
  select.replaceChildren(...options.map(({ value, label }) => new Option(label, value)));
  if (options.some((option) => option.value === selected)) select.value = selected;
}

function renderResult(request: TerminationRequest): void {
  byId('result-number', HTMLElement).replaceChildren(span('nowrap', request.requestNumber));
  byId('result-status', HTMLElement).textContent = STATUS_LABELS[request.status][language];
  byId('result-message', HTMLElement).replaceChildren(...apiText(request.message));
  resultSection.hidden = false;
}

function paragraph(className: string, ...content: (string | Node)[]): HTMLParagraphElement {
  const p = document.createElement('p');
  p.className = className;
  p.append(...content);
  return p;
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
  const status = paragraph('status', `${t('status')}: `, span('status-label', STATUS_LABELS[request.status][language]));
  item.append(title, status, paragraph('sent', t('sentOn', { date: formatMoment(request.createdAt) })));
  if (request.statusReason !== undefined) {
    const key: TextKey = request.status === 'REJECTED' ? 'rejectionReason' : 'bankNote';
    // The API's words are plain text: never HTML (docs/clients.md).
    item.append(paragraph('reason', t(key, { reason: request.statusReason })));
  }
  if (WITHDRAWABLE.includes(request.status)) {
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

function renderRequests(): void {
  const requests = listed?.requests ?? [];
  requestsEmpty.hidden = listed === undefined || requests.length > 0;
  moreButton.hidden = listed?.nextCursor === undefined;
  // A refresh draws the list anew: the focus stays on the request it was on.
  const focused =
    document.activeElement instanceof HTMLElement && requestsList.contains(document.activeElement) ? document.activeElement : null;
  const focusedRequest = focused?.closest('li')?.dataset['requestId'];
  requestsList.replaceChildren(...requests.map(renderRequest));
  if (focusedRequest !== undefined) focusRequest(focusedRequest);
}

function renderGeneral(lines: (string | HTMLSpanElement)[][], correlationId?: string): void {
  const paragraphs = lines.map((line) => paragraph('', ...line));
  if (correlationId !== undefined) paragraphs.push(paragraph('reference', t('reference', { id: correlationId })));
  generalError.replaceChildren(...paragraphs);
}

function fieldErrorText(error: FieldError, field: Field): (string | HTMLSpanElement)[] {
  if ('key' in error) return [t(error.key)];
  if ('text' in error) return apiText(error.text.charAt(0).toUpperCase() + error.text.slice(1));
  return [problemText(field, error.problem)];
}

/** A problem the page found, in the customer's words, with an example. */
function problemText(field: Field, problem: FieldProblem): string {
  const digits = field === 'bik' ? { digits: BIK_DIGITS, example: EXAMPLE_BIK } : { digits: ACCOUNT_DIGITS, example: EXAMPLE_ACCOUNT };
  const prefix = field === 'bik' ? 'bik' : 'account';
  const exampleDay = inputDay(dayInDays(30));
  switch (problem.code) {
    case 'required':
      if (field === 'bik' || field === 'account') return t(`${prefix}Required`, digits);
      if (field === 'date') return t('dateRequired', { example: exampleDay });
      return t('recipientRequired');
    case 'digitsOnly':
      return t(`${prefix}DigitsOnly`, digits);
    case 'digitCount':
      return t(`${prefix}DigitCount`, { ...digits, entered: problem.entered });
    case 'noLetter':
      return t('recipientNoLetter');
    case 'tooLong':
      return t('tooLong', { max: problem.max, entered: problem.entered });
    case 'hiddenCharacters':
      return t('hiddenCharacters');
    case 'dateFormat':
      return t('dateFormat', { example: exampleDay });
    case 'dateBeforeToday':
      return t('dateBeforeToday', { today: formatDay(problem.today) });
    case 'dateAfterEnd':
      return t('dateAfterEnd', { endDate: formatDay(problem.endDate) });
    case 'commentRequired':
      return t('commentRequired');
  }
}

function controlOf(field: Field): HTMLElement | undefined {
  if (field === 'contract') return contractRadios().find((radio) => radio.checked) ?? contractRadios()[0];
  return CONTROLS[field];
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

function renderHints(): void {
  byId('date-hint', HTMLElement).textContent = t('dateHint', { example: inputDay(dayInDays(30)) });
  byId('bik-hint', HTMLElement).textContent = t('bikHint', { digits: BIK_DIGITS });
  byId('account-hint', HTMLElement).textContent = t('accountHint', { digits: ACCOUNT_DIGITS });
}

function renderSubmit(): void {
  submitButton.disabled = formState !== 'ready';
  submitButton.textContent = formState === 'sending' ? t('sending') : formState === 'done' ? t('sent') : t('submit');
}

function applyLanguage(): void {
  document.documentElement.lang = language;
  document.title = t('title');
  for (const element of document.querySelectorAll<HTMLElement>('[data-text]')) {
    const key = element.dataset['text'];
    if (key !== undefined && isTextKey(key)) element.textContent = t(key);
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-lang]')) {
    button.setAttribute('aria-pressed', String(button.dataset['lang'] === language));
  }
  // The date typed so far, in the new language's way of writing it.
  const day = parseDate(dateInput.value);
  if (day !== undefined) dateInput.value = inputDay(day);
  renderHints();
  renderSubmit();
  renderOptions(
    reasonSelect,
    reasonChoices.map(({ reasonCode, label }) => ({ value: reasonCode, label })),
  );
  if (config) renderContracts(config.contracts);
  contractNote.textContent = t('contractNote');
  for (const field of FIELDS) renderFieldError(field);
  if (localProblem) renderGeneral([[t(localProblem.key)]], localProblem.correlationId);
  if (shown) renderResult(shown.request);
  renderRequests();
}

function clearProblems(): void {
  localProblem = undefined;
  generalError.replaceChildren();
  for (const field of FIELDS) setFieldError(field, undefined);
}

function showLocalProblem(key: TextKey, correlationId?: string): void {
  localProblem = correlationId === undefined ? { key } : { key, correlationId };
  renderGeneral([[t(key)]], correlationId);
}

// ---- the page's own checks -----------------------------------------------------------------

const commentRequired = () => reasonChoices.find((reason) => reason.reasonCode === reasonSelect.value)?.commentRequired ?? false;

function check(field: Field, moment: Moment): FieldProblem | undefined {
  switch (field) {
    case 'bik':
      return checkDigits(bikInput.value, BIK_DIGITS, moment);
    case 'account':
      return checkDigits(accountInput.value, ACCOUNT_DIGITS, moment);
    case 'recipient':
      return checkRecipientName(recipientInput.value, moment);
    case 'comment':
      return checkComment(commentInput.value, commentRequired(), moment);
    case 'date':
      return checkDate(dateInput.value, dayInDays(0), chosenContract()?.endDate, moment);
    case 'contract':
    case 'reason':
      return undefined;
  }
}

/**
 * The customer typed in a field: what no further typing can mend is said at once; a field that
 * already shows an error is checked in full, so the error goes as soon as the field is right.
 */
function checkAsTyped(field: Field): void {
  const problem = check(field, fieldErrors.has(field) ? 'complete' : 'typing');
  setFieldError(field, problem === undefined ? undefined : { problem });
}

/** The customer left a field: an empty one is not an error yet (it may be filled later). */
function checkOnLeaving(field: Field, value: string): void {
  if (value.trim() === '' && !fieldErrors.has(field)) return;
  const problem = check(field, 'complete');
  setFieldError(field, problem === undefined ? undefined : { problem });
}

/** Every field checked in full before a submit: true when all are right; otherwise the first wrong one has the focus. */
function checkAll(): boolean {
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
function showRefusal(error: { errorCode: string; message: string; correlationId: string; details: Problem[] }): void {
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

// ---- the form's state ----------------------------------------------------------------------

/** The form's fields can be changed when ready and while sending; another contract can be chosen but while sending. */
function setFormState(state: FormState): void {
  formState = state;
  form.dataset['state'] = state;
  const locked = state === 'done' || state === 'unavailable' || state === 'loading';
  for (const control of Object.values(CONTROLS)) control.disabled = locked;
  for (const radio of contractRadios()) radio.disabled = state === 'sending';
  contractNote.hidden = state !== 'unavailable';
  renderSubmit();
}

/** The form for the contract chosen: ready for a request, or locked if it cannot be terminated. */
function formForContract(): void {
  const contract = chosenContract();
  setFormState(contract !== undefined && isAvailable(contract) ? 'ready' : 'unavailable');
}

/** Another contract was chosen: a new action on it, or none if it cannot be terminated. */
function contractChosen(): void {
  clearProblems();
  unsettled = undefined;
  shown = undefined;
  resultSection.hidden = true;
  formForContract();
}

// ---- the action ----------------------------------------------------------------------------

const client = (loaded: PageConfig) => createTerminationClient({ baseUrl: loaded.apiUrl, token: () => loaded.token, language });

function readInput(): TerminationRequestInput {
  const reasonCode = reasonChoices.find((reason) => reason.reasonCode === reasonSelect.value)?.reasonCode;
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
  shown = { contractId, request: fetched.ok ? fetched.value : created };
  renderResult(shown.request);
}

async function submit(loaded: PageConfig): Promise<void> {
  // A request was made: the form is done, and another submit only points at its answer.
  if (formState === 'done') {
    resultSection.focus();
    return;
  }
  if (formState !== 'ready') return;
  clearProblems();
  if (!checkAll()) return;
  setFormState('sending');
  const contractId = chosenContractId();
  let made = false;
  try {
    const input = readInput();
    const sent = JSON.stringify([contractId, input]);
    const action =
      unsettled?.form === sent ? unsettled.action : { idempotencyKey: crypto.randomUUID(), correlationId: crypto.randomUUID() };
    unsettled = undefined;
    const result = await client(loaded).createTerminationRequest(contractId, input, action);
    // How many calls the client made for this action (its retries included): for support and tests.
    form.dataset['attempts'] = String(result.attempts);
    if (result.ok) {
      made = true;
      shown = { contractId, request: result.value };
      renderResult(result.value);
      await showRequest(loaded, contractId, result.value);
      await refreshRequests(loaded);
    } else if (result.reason === 'unreachable') {
      unsettled = { form: sent, action };
      showLocalProblem('unreachable', result.correlationId);
    } else {
      if (RETRIED_STATUSES.has(result.status)) unsettled = { form: sent, action };
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
async function loadRequests(loaded: PageConfig, contractId: string, more = false): Promise<void> {
  const before = more && listed?.contractId === contractId ? listed.requests : [];
  const cursor = more && listed?.contractId === contractId ? listed.nextCursor : undefined;
  const asked = ++listGeneration;
  const result = await client(loaded).listTerminationRequests(contractId, { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) });
  // Only the newest read of the list is shown: an older answer (another contract, a refresh that
  // started before a withdrawal) would show what is no longer so.
  if (!result.ok || asked !== listGeneration || chosenContractId() !== contractId) return;
  const { items, nextCursor } = result.value;
  listed = { contractId, requests: [...before, ...items], ...(nextCursor === undefined ? {} : { nextCursor }) };
  renderRequests();
}

/** The requests on show, read again: statuses change without a reload (the bank decides meanwhile). */
async function refreshRequests(loaded: PageConfig): Promise<void> {
  const contractId = chosenContractId();
  if (contractId === '') return;
  if (listed?.contractId !== contractId) {
    await loadRequests(loaded, contractId);
    return;
  }
  const limit = Math.min(100, Math.max(PAGE_SIZE, listed.requests.length));
  const asked = ++listGeneration;
  const result = await client(loaded).listTerminationRequests(contractId, { limit });
  if (!result.ok || asked !== listGeneration || chosenContractId() !== contractId) return;
  const { items, nextCursor } = result.value;
  listed = { contractId, requests: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
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

/** Focus back where the customer was in the list: the request's button, or its title once it has none. */
function focusRequest(requestId: string): void {
  const item = [...requestsList.children].find((child) => child instanceof HTMLElement && child.dataset['requestId'] === requestId);
  const target = item?.querySelector('button.withdraw') ?? item?.querySelector('h3');
  if (target instanceof HTMLElement) target.focus();
}

/** One user action: withdraw a request, after the customer confirms. Its key is kept until the outcome is known. */
async function withdraw(loaded: PageConfig, requestId: string, requestNumber: string): Promise<void> {
  const contractId = listed?.contractId;
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
async function loadReasons(loaded: PageConfig): Promise<void> {
  const asked = language;
  const reasons = await client(loaded).listTerminationReasons();
  if (!reasons.ok) {
    showLocalProblem(reasons.reason === 'unreachable' ? 'unreachable' : 'unexpected', reasons.correlationId);
    return;
  }
  // Another language may have been chosen meanwhile: its own call renders it.
  if (asked !== language) return;
  reasonChoices = reasons.value.items.map(({ reasonCode, label, commentRequired: required }) => ({
    reasonCode,
    label,
    commentRequired: required,
  }));
  applyLanguage();
}

async function refreshShown(loaded: PageConfig): Promise<void> {
  if (!shown) return;
  const { contractId, request } = shown;
  const fetched = await client(loaded).getTerminationRequest(contractId, request.requestId);
  // The page may have shown another request while this one was fetched.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (fetched.ok && shown?.request.requestId === request.requestId) {
    shown = { contractId, request: fetched.value };
    renderResult(fetched.value);
  }
}

async function main(): Promise<void> {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-lang]')) {
    button.addEventListener('click', () => {
      const chosen = button.dataset['lang'];
      if (chosen !== 'en' && chosen !== 'ru') return;
      language = chosen;
      applyLanguage();
      if (config) {
        void loadReasons(config);
        void refreshShown(config);
        void refreshRequests(config);
      }
    });
  }
  byId('withdraw-cancel', HTMLButtonElement).addEventListener('click', () => withdrawDialog.close('cancel'));
  byId('withdraw-confirm', HTMLButtonElement).addEventListener('click', () => withdrawDialog.close('confirm'));
  setFormState('loading');
  applyLanguage();
  try {
    const answer = await fetch('/config.json', { cache: 'no-store' });
    config = parseConfig(await answer.json());
  } catch (error) {
    console.error(error);
    showLocalProblem('loadFailed');
    return;
  }
  const loaded = config;
  applyLanguage();
  await loadReasons(loaded);
  dateInput.value = inputDay(dayInDays(30));
  if (loaded.bankDetails) {
    bikInput.value = loaded.bankDetails.bik;
    accountInput.value = loaded.bankDetails.accountNumber;
    recipientInput.value = loaded.bankDetails.recipientName;
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit(loaded);
  });
  for (const field of TYPED) {
    const control = CONTROLS[field];
    control.addEventListener('input', () => checkAsTyped(field));
    control.addEventListener('change', () => checkOnLeaving(field, control.value));
  }
  // A reason that needs a comment makes the comment's check another.
  reasonSelect.addEventListener('change', () => {
    if (fieldErrors.has('comment')) checkAsTyped('comment');
  });
  contractsBox.addEventListener('change', () => {
    contractChosen();
    listed = undefined;
    renderRequests();
    void loadRequests(loaded, chosenContractId());
  });
  moreButton.addEventListener('click', () => void loadRequests(loaded, chosenContractId(), true));
  requestsList.addEventListener('click', (event) => {
    const button = event.target instanceof HTMLElement ? event.target.closest('button.withdraw') : null;
    if (!(button instanceof HTMLButtonElement)) return;
    const { requestId, requestNumber } = button.dataset;
    if (requestId !== undefined && requestNumber !== undefined) void withdraw(loaded, requestId, requestNumber);
  });
  await loadRequests(loaded, chosenContractId());
  formForContract();
  // The timed refresh skips a tick while one is still in flight, and while the page is hidden.
  let refreshing = false;
  setInterval(() => {
    if (refreshing || document.hidden) return;
    refreshing = true;
    void refreshRequests(loaded).finally(() => (refreshing = false));
  }, loaded.refreshSeconds * 1000);
}

void main();
