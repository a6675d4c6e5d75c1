import type { Problem, ProblemCode, ProblemOf } from '../api-model/problems';
import type { ReasonCode, Status, TerminationRequest } from '../api-model/schemas';
import { WITHDRAWABLE_STATUSES } from '../termination/lifecycle';
import { REASON_NEEDING_COMMENT } from '../termination/reason-rules';
import type { ErrorCode } from './errors';

export type Language = 'en' | 'ru';

/** A list in the words of the language, by Intl's rules: "A or B", "A, B, or C"; "A и B" with `and`. */
export function listInWords(items: readonly string[], language: Language, conjunction: 'or' | 'and' = 'or'): string {
  return new Intl.ListFormat(language, { type: conjunction === 'or' ? 'disjunction' : 'conjunction' }).format(items);
}

/** Every text a client can read, in English and Russian (docs/decisions/0010-responses-and-texts.md). */
export interface Texts {
  error: (
    code: ErrorCode,
    args: { requestNumber?: string | undefined; nextRequestAllowedAt?: string | undefined; timeZone?: string | undefined },
  ) => string;
  created: (requestNumber: string) => string;
  /** The message of a withdrawal's answer (docs/decisions/0018-withdrawal.md). */
  withdrawn: () => string;
  /** The message of a request read back, for its current status. */
  requestStatus: (request: { status: TerminationRequest['status']; requestNumber: string; statusReason?: string | undefined }) => string;
  problem: (problem: Problem) => string;
  /** The label of each reason a customer may give (GET /api/v1/termination-reasons). */
  reasons: Record<ReasonCode, string>;
}

/** One text per problem code: a new code does not compile until both languages have its words. */
type ProblemTexts = { [C in ProblemCode]: (problem: ProblemOf<C>) => string };

function describe<C extends ProblemCode>(table: ProblemTexts, problem: ProblemOf<C>): string {
  const text: (problem: ProblemOf<C>) => string = table[problem.code];
  return text(problem);
}

const LOCALES: Record<Language, string> = { en: 'en-GB', ru: 'ru-RU' };

/**
 * A time for a reader, in the bank's business time zone (UTC when none is given), to the second:
 * the very moment the error body's own field names (nextRequestAllowedAt, a whole second, in UTC),
 * so a client that waits until the time it read is not refused again; a fraction, were there one,
 * is rounded up. The zone is named in the reader's language: 2026-12-24T09:00:30.000Z in
 * Europe/Moscow reads 2026-12-24 12:00:30 (Moscow Standard Time).
 */
function readableTime(iso: string | undefined, timeZone: string | undefined, language: Language): string {
  const time = iso === undefined ? Number.NaN : Date.parse(iso);
  if (Number.isNaN(time)) return '-';
  const rounded = new Date(Math.ceil(time / 1000) * 1000);
  const parts = new Intl.DateTimeFormat(LOCALES[language], {
    timeZone: timeZone ?? 'UTC',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'long',
  }).formatToParts(rounded);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')} (${part('timeZoneName')})`;
}

/** The Russian form of a noun after a count: 1 день, 2 дня, 5 дней, 21 день, 11 дней. */
function ruPlural(count: number, one: string, few: string, many: string): string {
  const [tens, units] = [count % 100, count % 10];
  if (units === 1 && tens !== 11) return one;
  return units >= 2 && units <= 4 && (tens < 12 || tens > 14) ? few : many;
}

/** The back office's own words follow the status text, as it wrote them. */
const withReason = (text: string, reason: string | undefined, label: string) =>
  reason === undefined ? text : `${text} ${label}: ${reason}`;

const enProblems: ProblemTexts = {
  required: () => 'is required',
  unknownField: () => 'is not an allowed field',
  customerIdForbidden: () => 'must not be sent: the customer is taken from the authorization',
  mustBeUuid: () => 'must be a UUID',
  mustBeString: () => 'must be a string',
  mustBeObject: () => 'must be an object',
  mustBeArray: () => 'must be an array',
  notInDictionary: ({ allowed }) => `must be one of ${allowed.join(', ')}`,
  date: () => 'must be a real date in the format YYYY-MM-DD',
  dateInPast: ({ today }) => `must not be earlier than today (${today})`,
  digits: ({ limit }) => `must be exactly ${limit} digits`,
  recipientName: () => 'must be 1 to 255 characters with at least one letter, and no control, formatting or invisible characters',
  commentText: () => 'must not contain control, formatting or invisible characters (line breaks are fine)',
  maxLength: ({ limit }) => `must be at most ${limit} characters`,
  maxItems: ({ limit }) => `must have at most ${limit} items`,
  duplicate: () => 'must not repeat another item',
  invalid: () => 'is not valid',
  contractNotFound: () => 'no such contract',
  contractAccessDenied: () => 'the contract does not belong to you',
  contractNotActive: () => 'the contract is not active',
  dateAfterContractEnd: ({ endDate }) => `must not be after the end of the contract (${endDate})`,
  accountKeyMismatch: () => 'the control key of the account does not match the BIK',
  commentRequired: () => `is required when reasonCode is ${REASON_NEEDING_COMMENT}`,
  keyReused: () => 'was already used with a different request body or contract',
  activeRequestExists: ({ requestNumber }) =>
    requestNumber === undefined
      ? 'a request is already active on this contract'
      : `request ${requestNumber} is already active on this contract`,
  notJson: () => 'the body is not valid JSON',
  notObject: () => 'the body must be a JSON object',
  contentType: () => 'must be application/json',
  charsetNotUtf8: () => 'must say charset=utf-8 or no charset: the body is JSON, and JSON is UTF-8',
  tooLarge: ({ limit }) => `the body must be at most ${limit} bytes`,
  bodyNotAllowed: () => 'must be empty: this call takes no body',
  bearerTokenRequired: () => 'a valid bearer token is required',
  notWithdrawable: ({ status }) => `the request is ${status}: only a ${listInWords(WITHDRAWABLE_STATUSES, 'en')} request can be withdrawn`,
  requestNotFound: () => 'no such request on this contract',
  requestErased: () => 'the request this key was used for has been erased at your request',
  range: ({ min, max }) => `must be a whole number from ${min} to ${max}`,
  documentNotAvailable: () => 'is not one of your uploaded documents, or cannot be attached yet',
  requestLimitReached: ({ limit, days, from, timeZone }) =>
    `at most ${limit} requests per contract in ${days} ${days === 1 ? 'day' : 'days'}; a new one is possible from ${readableTime(from, timeZone, 'en')}`,
};

const enSubmitted = (n: string) => `Your early termination request No. ${n} has been submitted.`;

/** One text per status: a new status does not compile until both languages have its words. */
const enStatus: Record<Status, (n: string) => string> = {
  SUBMITTED: enSubmitted,
  IN_REVIEW: (n) => `Your early termination request No. ${n} is being reviewed by the bank.`,
  APPROVED: (n) => `Your early termination request No. ${n} has been approved; the contract will be terminated.`,
  COMPLETED: (n) => `Your early termination request No. ${n} has been completed: the contract is terminated.`,
  REJECTED: (n) => `Your early termination request No. ${n} has been rejected.`,
  WITHDRAWN: (n) => `Your early termination request No. ${n} has been withdrawn at your request.`,
};

const en: Texts = {
  error: (code, args) =>
    ({
      MALFORMED_REQUEST: 'The request could not be read.',
      VALIDATION_ERROR: 'Some fields of the request are not valid.',
      IDEMPOTENCY_KEY_MISSING: 'The Idempotency-Key header is required.',
      UNAUTHORIZED: 'Authorization is required.',
      CONTRACT_ACCESS_DENIED: 'You do not have access to this contract.',
      CONTRACT_NOT_FOUND: 'The contract was not found.',
      TERMINATION_REQUEST_NOT_FOUND: 'The termination request was not found.',
      REQUEST_NOT_WITHDRAWABLE: 'The termination request can no longer be withdrawn.',
      ACTIVE_REQUEST_ALREADY_EXISTS: `An active termination request${args.requestNumber === undefined ? '' : ` ${args.requestNumber}`} already exists for this contract.`,
      CONTRACT_NOT_ACTIVE: 'The contract is not active and cannot be terminated.',
      TERMINATION_DATE_AFTER_CONTRACT_END: 'The desired termination date is after the end of the contract.',
      BANK_ACCOUNT_KEY_MISMATCH: 'The account number does not match the BIK.',
      COMMENT_REQUIRED: 'Please describe the reason in the comment.',
      IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was already used for a different request.',
      DOCUMENT_NOT_AVAILABLE: 'Some of the documents cannot be attached: choose among your uploaded documents.',
      REQUEST_LIMIT_REACHED: `You have reached the limit of termination requests for this contract. A new request is possible from ${readableTime(args.nextRequestAllowedAt, args.timeZone, 'en')}.`,
      INTERNAL_ERROR: 'Something went wrong on our side. Please try again later.',
      SERVICE_UNAVAILABLE: 'The service is temporarily unavailable. Please retry later.',
    })[code],
  created: (n) => enSubmitted(n),
  withdrawn: () => 'Your early termination request has been withdrawn.',
  requestStatus: ({ status, requestNumber, statusReason }) =>
    withReason(enStatus[status](requestNumber), statusReason, status === 'REJECTED' ? 'Reason' : 'Note from the bank'),
  problem: (problem) => describe(enProblems, problem),
  reasons: {
    RELOCATION: 'Relocation',
    FINANCIAL_HARDSHIP: 'Financial hardship',
    SERVICE_DISSATISFACTION: 'Dissatisfied with the service',
    BETTER_OFFER_ELSEWHERE: 'A better offer elsewhere',
    NO_LONGER_NEEDED: 'No longer needed',
    OTHER: 'Other',
  },
};

const ruProblems: ProblemTexts = {
  required: () => 'обязательное поле',
  unknownField: () => 'недопустимое поле',
  customerIdForbidden: () => 'нельзя передавать: клиент определяется по авторизации',
  mustBeUuid: () => 'должно быть UUID',
  mustBeString: () => 'должно быть строкой',
  mustBeObject: () => 'должно быть объектом',
  mustBeArray: () => 'должно быть массивом',
  notInDictionary: ({ allowed }) => `допустимые значения: ${allowed.join(', ')}`,
  date: () => 'должна быть существующей датой в формате ГГГГ-ММ-ДД',
  dateInPast: ({ today }) => `не может быть раньше сегодняшней даты (${today})`,
  digits: ({ limit }) => `должно состоять ровно из ${limit} цифр`,
  recipientName: () => 'от 1 до 255 символов, хотя бы одна буква, без управляющих, форматирующих и невидимых символов',
  commentText: () => 'не должен содержать управляющих, форматирующих и невидимых символов (переводы строк допустимы)',
  maxLength: ({ limit }) => `не более ${limit} символов`,
  maxItems: ({ limit }) => `не более ${limit} элементов`,
  duplicate: () => 'не должно повторять другой элемент',
  invalid: () => 'неверное значение',
  contractNotFound: () => 'договор не найден',
  contractAccessDenied: () => 'договор вам не принадлежит',
  contractNotActive: () => 'договор не действует',
  dateAfterContractEnd: ({ endDate }) => `не может быть позже окончания договора (${endDate})`,
  accountKeyMismatch: () => 'контрольный ключ счёта не соответствует БИК',
  commentRequired: () => `обязателен при reasonCode ${REASON_NEEDING_COMMENT}`,
  keyReused: () => 'уже использован с другим телом запроса или договором',
  activeRequestExists: ({ requestNumber }) =>
    requestNumber === undefined ? 'по договору уже действует заявка' : `по договору уже действует заявка ${requestNumber}`,
  notJson: () => 'тело запроса не является корректным JSON',
  notObject: () => 'тело запроса должно быть JSON-объектом',
  contentType: () => 'должен быть application/json',
  charsetNotUtf8: () => 'должен указывать charset=utf-8 или не указывать кодировку: тело — JSON, а JSON передаётся в UTF-8',
  tooLarge: ({ limit }) => `тело запроса не должно превышать ${limit} байт`,
  bodyNotAllowed: () => 'должно быть пустым: этот запрос передаётся без тела',
  bearerTokenRequired: () => 'требуется действующий токен доступа (Bearer)',
  notWithdrawable: ({ status }) =>
    `заявка в статусе ${status}: отозвать можно только заявку в статусе ${listInWords(WITHDRAWABLE_STATUSES, 'ru')}`,
  requestNotFound: () => 'по этому договору нет такой заявки',
  requestErased: () => 'заявка, для которой использован этот ключ, удалена по вашему запросу',
  range: ({ min, max }) => `должно быть целым числом от ${min} до ${max}`,
  documentNotAvailable: () => 'не является вашим загруженным документом или пока не может быть приложен',
  requestLimitReached: ({ limit, days, from, timeZone }) =>
    `не более ${limit} ${ruPlural(limit, 'заявки', 'заявок', 'заявок')} по договору за ${days} ${ruPlural(days, 'день', 'дня', 'дней')}; новую можно подать с ${readableTime(from, timeZone, 'ru')}`,
};

const ruSubmitted = (n: string) => `Ваша заявка на досрочное расторжение договора № ${n} принята.`;

const ruStatus: Record<Status, (n: string) => string> = {
  SUBMITTED: ruSubmitted,
  IN_REVIEW: (n) => `Ваша заявка на досрочное расторжение договора № ${n} рассматривается банком.`,
  APPROVED: (n) => `Ваша заявка на досрочное расторжение договора № ${n} одобрена, договор будет расторгнут.`,
  COMPLETED: (n) => `Ваша заявка на досрочное расторжение договора № ${n} исполнена: договор расторгнут.`,
  REJECTED: (n) => `Ваша заявка на досрочное расторжение договора № ${n} отклонена.`,
  WITHDRAWN: (n) => `Ваша заявка на досрочное расторжение договора № ${n} отозвана по вашей просьбе.`,
};

const ru: Texts = {
  error: (code, args) =>
    ({
      MALFORMED_REQUEST: 'Не удалось прочитать запрос.',
      VALIDATION_ERROR: 'Некоторые поля запроса заполнены неверно.',
      IDEMPOTENCY_KEY_MISSING: 'Заголовок Idempotency-Key обязателен.',
      UNAUTHORIZED: 'Требуется авторизация.',
      CONTRACT_ACCESS_DENIED: 'У вас нет доступа к этому договору.',
      CONTRACT_NOT_FOUND: 'Договор не найден.',
      TERMINATION_REQUEST_NOT_FOUND: 'Заявка на расторжение не найдена.',
      REQUEST_NOT_WITHDRAWABLE: 'Эту заявку на расторжение уже нельзя отозвать.',
      ACTIVE_REQUEST_ALREADY_EXISTS: `По этому договору уже есть активная заявка на расторжение${args.requestNumber === undefined ? '' : ` ${args.requestNumber}`}.`,
      CONTRACT_NOT_ACTIVE: 'Договор не действует, его нельзя расторгнуть.',
      TERMINATION_DATE_AFTER_CONTRACT_END: 'Желаемая дата расторжения позже даты окончания договора.',
      BANK_ACCOUNT_KEY_MISMATCH: 'Номер счёта не соответствует БИК.',
      COMMENT_REQUIRED: 'Пожалуйста, опишите причину в комментарии.',
      IDEMPOTENCY_KEY_REUSED: 'Этот Idempotency-Key уже использован для другого запроса.',
      DOCUMENT_NOT_AVAILABLE: 'Некоторые документы нельзя приложить: выберите из загруженных вами документов.',
      REQUEST_LIMIT_REACHED: `Достигнуто предельное число заявок на расторжение по этому договору. Новую заявку можно подать с ${readableTime(args.nextRequestAllowedAt, args.timeZone, 'ru')}.`,
      INTERNAL_ERROR: 'Что-то пошло не так. Пожалуйста, повторите попытку позже.',
      SERVICE_UNAVAILABLE: 'Сервис временно недоступен. Повторите попытку позже.',
    })[code],
  created: (n) => ruSubmitted(n),
  withdrawn: () => 'Ваша заявка на досрочное расторжение договора отозвана.',
  requestStatus: ({ status, requestNumber, statusReason }) =>
    withReason(ruStatus[status](requestNumber), statusReason, status === 'REJECTED' ? 'Причина' : 'Комментарий банка'),
  problem: (problem) => describe(ruProblems, problem),
  reasons: {
    RELOCATION: 'Переезд',
    FINANCIAL_HARDSHIP: 'Финансовые трудности',
    SERVICE_DISSATISFACTION: 'Недоволен обслуживанием',
    BETTER_OFFER_ELSEWHERE: 'Более выгодное предложение в другом месте',
    NO_LONGER_NEEDED: 'Больше не нужен',
    OTHER: 'Другое',
  },
};

const TEXTS: Record<Language, Texts> = { en, ru };

export function textsFor(language: Language): Texts {
  return TEXTS[language];
}

/**
 * The longest Accept-Language the API reads (the API description's maxLength): a browser's
 * longest lists are a few dozen entries of a dozen characters; a longer header is refused.
 */
export const MAX_ACCEPT_LANGUAGE_LENGTH = 512;

/**
 * The language the client prefers among those we have: Russian when `ru` (or `ru-*`) ranks
 * above English in Accept-Language, English otherwise.
 */
export function preferredLanguage(acceptLanguage: string | undefined): Language {
  if (!acceptLanguage) return 'en';
  let best: { language: Language; q: number } | undefined;
  for (const part of acceptLanguage.split(',').slice(0, 20)) {
    const [tag = '', ...params] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0 || q > 1) continue;
    const language: Language | undefined = primary === 'ru' ? 'ru' : primary === 'en' || primary === '*' ? 'en' : undefined;
    if (language && (!best || q > best.q)) best = { language, q };
  }
  return best?.language ?? 'en';
}
