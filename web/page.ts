import { createTerminationClient, type ClientOptions, type TerminationRequest, type TerminationRequestInput } from '../client/index.ts';

/*
 * The personal account's termination form: a plain page over the typed client (client/), which
 * is all it knows of the API. One user action is one Idempotency-Key: the submit button is
 * disabled while a call is in flight, and a submit of the very same form after an answer that
 * never came (or one worth retrying) reuses the key, so the bank records the request once.
 * Served by scripts/local/page-server.ts, which also serves /config.json.
 */

type Language = NonNullable<ClientOptions['language']>;
type Reason = TerminationRequestInput['reasonCode'];
type Status = TerminationRequest['status'];

interface ContractChoice {
  contractId: string;
  status: string;
  endDate?: string;
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
let reasonChoices: { reasonCode: Reason; label: string }[] = [];

const STATUS_LABELS: Record<Status, Record<Language, string>> = {
  SUBMITTED: { en: 'Submitted', ru: 'Подана' },
  IN_REVIEW: { en: 'In review', ru: 'На рассмотрении' },
  APPROVED: { en: 'Approved', ru: 'Одобрена' },
  COMPLETED: { en: 'Completed', ru: 'Исполнена' },
  REJECTED: { en: 'Rejected', ru: 'Отклонена' },
  WITHDRAWN: { en: 'Withdrawn', ru: 'Отозвана' },
};

const EN = {
  title: 'Early termination of a contract',
  intro: 'Ask the bank to terminate one of your contracts ahead of its term.',
  contract: 'Contract',
  reason: 'Reason',
  date: 'Desired termination date',
  bankDetails: 'Where to pay the balance',
  bik: 'BIK',
  account: 'Account number',
  recipient: 'Recipient name',
  comment: 'Comment (optional)',
  submit: 'Submit request',
  sending: 'Sending…',
  resultTitle: 'Request submitted',
  requestNumber: 'Request number',
  status: 'Status',
  contractActive: 'active',
  contractActiveUntil: 'active until {date}',
  contractClosed: 'closed',
  unreachable: 'The bank could not be reached. Check your connection and press "Submit request" again: the request will not be made twice.',
  unexpected: 'Something went wrong on this page. Reload it and try again.',
  loadFailed: 'The page could not load its settings. Reload it to try again.',
  reference: 'Reference for support: {id}',
  requestsTitle: 'My requests on this contract',
  requestsEmpty: 'No requests on this contract yet.',
  more: 'Show more',
  bankNote: "Bank's note",
  withdraw: 'Withdraw',
  withdrawLabel: 'Withdraw request {number}',
  withdrawing: 'Withdrawing…',
  confirmWithdraw: 'Withdraw request {number}? The bank will stop handling it; this cannot be undone.',
  withdrawUnreachable: 'The bank could not be reached. Press "Withdraw" again: the request will be withdrawn once.',
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
    bankDetails: 'Куда перечислить остаток',
    bik: 'БИК',
    account: 'Номер счёта',
    recipient: 'Получатель',
    comment: 'Комментарий (необязательно)',
    submit: 'Отправить заявление',
    sending: 'Отправляем…',
    resultTitle: 'Заявление принято',
    requestNumber: 'Номер заявления',
    status: 'Статус',
    contractActive: 'действует',
    contractActiveUntil: 'действует до {date}',
    contractClosed: 'закрыт',
    unreachable:
      'Не удалось связаться с банком. Проверьте соединение и нажмите «Отправить заявление» ещё раз: заявление не будет создано дважды.',
    unexpected: 'На странице произошла ошибка. Обновите её и попробуйте снова.',
    loadFailed: 'Не удалось загрузить настройки страницы. Обновите её, чтобы попробовать снова.',
    reference: 'Номер обращения для поддержки: {id}',
    requestsTitle: 'Мои заявления по этому договору',
    requestsEmpty: 'По этому договору заявлений пока нет.',
    more: 'Показать ещё',
    bankNote: 'Комментарий банка',
    withdraw: 'Отозвать',
    withdrawLabel: 'Отозвать заявление {number}',
    withdrawing: 'Отзываем…',
    confirmWithdraw: 'Отозвать заявление {number}? Банк прекратит его рассмотрение; отменить это нельзя.',
    withdrawUnreachable: 'Не удалось связаться с банком. Нажмите «Отозвать» ещё раз: заявление будет отозвано один раз.',
  },
};

// ---- the page's elements -------------------------------------------------------------------

function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`The page has no #${id}`);
  return element;
}

const form = byId('termination-form', HTMLFormElement);
const contractSelect = byId('contract', HTMLSelectElement);
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

/** Where each field an error's details name is shown: its control's id (the error text is `<id>-error`). */
const FIELD_CONTROLS = new Map<string, string>([
  ['contractId', 'contract'],
  ['reasonCode', 'reason'],
  ['desiredTerminationDate', 'date'],
  ['bankDetails.bik', 'bik'],
  ['bankDetails.accountNumber', 'account'],
  ['bankDetails.recipientName', 'recipient'],
  ['comment', 'comment'],
]);

/** Answers the client retries on its own: after them the outcome is unknown, so the same action keeps its key. */
const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

// ---- state ---------------------------------------------------------------------------------

let language: Language = navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en';
let inFlight = false;
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

const t = (key: TextKey, values: Record<string, string> = {}): string =>
  TEXTS[language][key].replace(/\{(\w+)\}/g, (match, name: string) => values[name] ?? match);

// ---- config --------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseContract(value: unknown): ContractChoice {
  if (!isRecord(value) || typeof value['contractId'] !== 'string' || typeof value['status'] !== 'string') {
    throw new Error('config.json: a contract without contractId and status');
  }
  const endDate = value['endDate'];
  return { contractId: value['contractId'], status: value['status'], ...(typeof endDate === 'string' ? { endDate } : {}) };
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

// ---- rendering -----------------------------------------------------------------------------

function contractLabel(contract: ContractChoice): string {
  const state =
    contract.status === 'ACTIVE'
      ? contract.endDate
        ? t('contractActiveUntil', { date: contract.endDate })
        : t('contractActive')
      : contract.status === 'CLOSED'
        ? t('contractClosed')
        : contract.status;
  return `${contract.contractId} · ${state}`;
}

function renderOptions(select: HTMLSelectElement, options: { value: string; label: string }[]): void {
  const selected = select.value;
  select.replaceChildren(...options.map(({ value, label }) => new Option(label, value)));
  if (options.some((option) => option.value === selected)) select.value = selected;
}

function renderResult(request: TerminationRequest): void {
  byId('result-number', HTMLElement).textContent = request.requestNumber;
  byId('result-status', HTMLElement).textContent = STATUS_LABELS[request.status][language];
  byId('result-message', HTMLElement).textContent = request.message;
  resultSection.hidden = false;
}

function renderRequest(request: TerminationRequest): HTMLLIElement {
  const item = document.createElement('li');
  item.dataset['requestId'] = request.requestId;
  item.dataset['status'] = request.status;
  const title = document.createElement('h3');
  title.textContent = `${t('requestNumber')} ${request.requestNumber}`;
  const status = document.createElement('p');
  status.className = 'status';
  status.textContent = `${t('status')}: ${STATUS_LABELS[request.status][language]}`;
  const message = document.createElement('p');
  message.className = 'message';
  // The API's words are plain text: never HTML (docs/clients.md).
  message.textContent = request.message;
  item.append(title, status, message);
  if (request.statusReason !== undefined) {
    const reason = document.createElement('p');
    reason.className = 'reason';
    reason.textContent = `${t('bankNote')}: ${request.statusReason}`;
    item.append(reason);
  }
  if (WITHDRAWABLE.includes(request.status)) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'withdraw';
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
  requestsList.replaceChildren(...requests.map(renderRequest));
}

function renderGeneral(lines: string[], correlationId?: string): void {
  const paragraphs = lines.map((line) => {
    const p = document.createElement('p');
    p.textContent = line;
    return p;
  });
  if (correlationId !== undefined) {
    const reference = document.createElement('p');
    reference.className = 'reference';
    reference.textContent = t('reference', { id: correlationId });
    paragraphs.push(reference);
  }
  generalError.replaceChildren(...paragraphs);
}

function applyLanguage(config: PageConfig | undefined): void {
  document.documentElement.lang = language;
  document.title = t('title');
  for (const element of document.querySelectorAll<HTMLElement>('[data-text]')) {
    const key = element.dataset['text'];
    if (key !== undefined && isTextKey(key)) element.textContent = t(key);
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-lang]')) {
    button.setAttribute('aria-pressed', String(button.dataset['lang'] === language));
  }
  if (inFlight) submitButton.textContent = t('sending');
  renderOptions(
    reasonSelect,
    reasonChoices.map(({ reasonCode, label }) => ({ value: reasonCode, label })),
  );
  if (config) {
    const contracts = config.contracts.map((contract) => ({ value: contract.contractId, label: contractLabel(contract) }));
    renderOptions(contractSelect, contracts);
  }
  if (localProblem) renderGeneral([t(localProblem.key)], localProblem.correlationId);
  if (shown) renderResult(shown.request);
  renderRequests();
}

function clearProblems(): void {
  localProblem = undefined;
  generalError.replaceChildren();
  for (const control of FIELD_CONTROLS.values()) {
    byId(`${control}-error`, HTMLElement).textContent = '';
    byId(control, HTMLElement).removeAttribute('aria-invalid');
  }
}

function showLocalProblem(key: TextKey, correlationId?: string): void {
  localProblem = correlationId === undefined ? { key } : { key, correlationId };
  renderGeneral([t(key)], correlationId);
}

/** The API's refusal: its message in the general area, each detail beside its field (or there, if the form has no such field). */
function showRefusal(error: { message: string; correlationId: string; details: Problem[] }): void {
  const elsewhere: string[] = [];
  const invalid: HTMLElement[] = [];
  for (const { field, reason } of error.details) {
    const control = FIELD_CONTROLS.get(field);
    if (control === undefined) {
      elsewhere.push(`${field}: ${reason}`);
      continue;
    }
    const text = byId(`${control}-error`, HTMLElement);
    text.textContent = text.textContent ? `${text.textContent}\n${reason}` : reason;
    const input = byId(control, HTMLElement);
    input.setAttribute('aria-invalid', 'true');
    invalid.push(input);
  }
  renderGeneral([error.message, ...elsewhere], error.correlationId);
  invalid[0]?.focus();
}

// ---- the action ----------------------------------------------------------------------------

const client = (config: PageConfig) => createTerminationClient({ baseUrl: config.apiUrl, token: () => config.token, language });

/** BIK and account number as typed, spaces (a common way to group digits) dropped. */
const withoutSpaces = (value: string) => value.replace(/\s+/g, '');

function readInput(): TerminationRequestInput {
  const reasonCode = reasonChoices.find((reason) => reason.reasonCode === reasonSelect.value)?.reasonCode;
  if (reasonCode === undefined) throw new Error(`Unknown reason ${reasonSelect.value}`);
  const comment = commentInput.value;
  return {
    reasonCode,
    desiredTerminationDate: dateInput.value,
    bankDetails: {
      bik: withoutSpaces(bikInput.value),
      accountNumber: withoutSpaces(accountInput.value),
      recipientName: recipientInput.value.trim(),
    },
    ...(comment.trim() === '' ? {} : { comment }),
  };
}

async function showRequest(config: PageConfig, contractId: string, created: TerminationRequest): Promise<void> {
  // The request as the bank now has it (its current status), in the page's language.
  const fetched = await client(config).getTerminationRequest(contractId, created.requestId);
  shown = { contractId, request: fetched.ok ? fetched.value : created };
  renderResult(shown.request);
}

async function submit(config: PageConfig): Promise<void> {
  if (inFlight) return;
  inFlight = true;
  submitButton.disabled = true;
  submitButton.textContent = t('sending');
  form.dataset['state'] = 'sending';
  clearProblems();
  resultSection.hidden = true;
  shown = undefined;
  try {
    const contractId = contractSelect.value;
    const input = readInput();
    const sent = JSON.stringify([contractId, input]);
    const action =
      unsettled?.form === sent ? unsettled.action : { idempotencyKey: crypto.randomUUID(), correlationId: crypto.randomUUID() };
    unsettled = undefined;
    const result = await client(config).createTerminationRequest(contractId, input, action);
    // How many calls the client made for this action (its retries included): for support and tests.
    form.dataset['attempts'] = String(result.attempts);
    if (result.ok) {
      await showRequest(config, contractId, result.value);
      await refreshRequests(config);
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
    inFlight = false;
    submitButton.disabled = false;
    submitButton.textContent = t('submit');
    form.dataset['state'] = 'ready';
  }
}

/** The first page of the contract's requests, or (more) the next one after those on show. */
async function loadRequests(config: PageConfig, contractId: string, more = false): Promise<void> {
  const before = more && listed?.contractId === contractId ? listed.requests : [];
  const cursor = more && listed?.contractId === contractId ? listed.nextCursor : undefined;
  const asked = ++listGeneration;
  const result = await client(config).listTerminationRequests(contractId, { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) });
  // Only the newest read of the list is shown: an older answer (another contract, a refresh that
  // started before a withdrawal) would show what is no longer so.
  if (!result.ok || asked !== listGeneration || contractSelect.value !== contractId) return;
  const { items, nextCursor } = result.value;
  listed = { contractId, requests: [...before, ...items], ...(nextCursor === undefined ? {} : { nextCursor }) };
  renderRequests();
}

/** The requests on show, read again: statuses change without a reload (the bank decides meanwhile). */
async function refreshRequests(config: PageConfig): Promise<void> {
  const contractId = contractSelect.value;
  if (contractId === '') return;
  if (listed?.contractId !== contractId) {
    await loadRequests(config, contractId);
    return;
  }
  const limit = Math.min(100, Math.max(PAGE_SIZE, listed.requests.length));
  const asked = ++listGeneration;
  const result = await client(config).listTerminationRequests(contractId, { limit });
  if (!result.ok || asked !== listGeneration || contractSelect.value !== contractId) return;
  const { items, nextCursor } = result.value;
  listed = { contractId, requests: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
  renderRequests();
}

/** One user action: withdraw a request, after the user confirms. Its key is kept until the outcome is known. */
async function withdraw(config: PageConfig, requestId: string, requestNumber: string): Promise<void> {
  const contractId = listed?.contractId;
  if (contractId === undefined || withdrawing.has(requestId)) return;
  if (!window.confirm(t('confirmWithdraw', { number: requestNumber }))) return;
  clearProblems();
  withdrawing.add(requestId);
  renderRequests();
  const action = withdrawActions.get(requestId) ?? { idempotencyKey: crypto.randomUUID(), correlationId: crypto.randomUUID() };
  withdrawActions.set(requestId, action);
  try {
    const result = await client(config).withdrawTerminationRequest(contractId, requestId, action);
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
    await refreshRequests(config);
  }
}

/** The form's reasons, from the API in the page's language: the list the create itself accepts. */
async function loadReasons(config: PageConfig): Promise<void> {
  const asked = language;
  const reasons = await client(config).listTerminationReasons();
  if (!reasons.ok) {
    showLocalProblem(reasons.reason === 'unreachable' ? 'unreachable' : 'unexpected', reasons.correlationId);
    return;
  }
  // Another language may have been chosen meanwhile: its own call renders it.
  if (asked !== language) return;
  reasonChoices = reasons.value.items.map(({ reasonCode, label }) => ({ reasonCode, label }));
  applyLanguage(config);
}

async function refreshShown(config: PageConfig): Promise<void> {
  if (!shown) return;
  const { contractId, request } = shown;
  const fetched = await client(config).getTerminationRequest(contractId, request.requestId);
  // The page may have shown another request while this one was fetched.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  if (fetched.ok && shown?.request.requestId === request.requestId) {
    shown = { contractId, request: fetched.value };
    renderResult(fetched.value);
  }
}

/** A date some weeks ahead, as the date input writes it. */
function dateInDays(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

async function main(): Promise<void> {
  let config: PageConfig | undefined;
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-lang]')) {
    button.addEventListener('click', () => {
      const chosen = button.dataset['lang'];
      if (chosen !== 'en' && chosen !== 'ru') return;
      language = chosen;
      applyLanguage(config);
      if (config) {
        void loadReasons(config);
        void refreshShown(config);
        void refreshRequests(config);
      }
    });
  }
  applyLanguage(config);
  try {
    const answer = await fetch('/config.json', { cache: 'no-store' });
    config = parseConfig(await answer.json());
  } catch (error) {
    console.error(error);
    showLocalProblem('loadFailed');
    return;
  }
  const loaded = config;
  applyLanguage(loaded);
  await loadReasons(loaded);
  dateInput.min = dateInDays(0);
  dateInput.value = dateInDays(30);
  if (loaded.bankDetails) {
    bikInput.value = loaded.bankDetails.bik;
    accountInput.value = loaded.bankDetails.accountNumber;
    recipientInput.value = loaded.bankDetails.recipientName;
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit(loaded);
  });
  contractSelect.addEventListener('change', () => {
    listed = undefined;
    renderRequests();
    void loadRequests(loaded, contractSelect.value);
  });
  moreButton.addEventListener('click', () => void loadRequests(loaded, contractSelect.value, true));
  requestsList.addEventListener('click', (event) => {
    const button = event.target instanceof HTMLElement ? event.target.closest('button.withdraw') : null;
    if (!(button instanceof HTMLButtonElement)) return;
    const { requestId, requestNumber } = button.dataset;
    if (requestId !== undefined && requestNumber !== undefined) void withdraw(loaded, requestId, requestNumber);
  });
  await loadRequests(loaded, contractSelect.value);
  // The timed refresh skips a tick while one is still in flight, and while the page is hidden.
  let refreshing = false;
  setInterval(() => {
    if (refreshing || document.hidden) return;
    refreshing = true;
    void refreshRequests(loaded).finally(() => (refreshing = false));
  }, loaded.refreshSeconds * 1000);
  submitButton.disabled = false;
  form.dataset['state'] = 'ready';
}

void main();
