import { CallForm } from './call-form';
import { accessRefusal } from './contract-access';
import type { CallContext } from './call-context';
import { isUuid } from '../api-model/validator';
import { refuse, type Refusal } from './refusals';
import type { RequestLimit, StoredRequest, TerminationStore } from './ports/store';
import { nextRequestAllowedAt } from './request-limit';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './page-size';
import { withinBudget, type EndedEarly } from './within-budget';

/*
 * Reading requests back (docs/decisions/0015-reading-requests.md): one DynamoDB call when the
 * answer is there (the list's first page reads the caller's limit record in that call too); a
 * miss (an empty list included) costs one read of the contract, to tell the caller which 404 or
 * 403, or that the list of their own contract is empty.
 */

export interface ReadCall {
  customerId: string;
  contractId: string | undefined;
  context: CallContext;
}

/** A request as its customer may see it: never the customer id. The edge adds the message for its status, in their language. */
export type RequestView = Omit<StoredRequest, 'customerId'>;

export interface ReadDeps {
  store: Pick<TerminationStore, 'findRequest' | 'listRequests' | 'findContract'>;
  /** All DynamoDB work of one read ends by then as unavailable (503), well inside the Lambda timeout. */
  budgetMs: number;
}

/** The list's: the limit of requests per contract, to say when the next is possible (0020-request-limit.md). */
export interface ListDeps extends ReadDeps {
  limit: RequestLimit;
  now?: () => Date;
}

export type ReadOutcome =
  | { kind: 'found'; request: RequestView }
  | { kind: 'listed'; requests: RequestView[]; nextCursor: string | undefined; nextRequestAllowedAt?: string | undefined }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'unavailable'; cause: unknown };

export const view = ({ customerId: _customerId, ...shown }: StoredRequest): RequestView => shown;

/** A call that names one request by its contract and id. */
export type RequestCall = ReadCall & { requestId: string | undefined };

/**
 * One request read by its contract and id (0015-reading-requests.md): what `find` reads of it is
 * shown, as `found` makes it, to the customer who made it; to anyone else it is as if it did not
 * exist, and the contract decides between 404 and 403. GET of one request and of its details.
 */
export function readOwnRequest<Item extends { customerId: string }, Found>(
  { store, budgetMs }: { store: Pick<TerminationStore, 'findContract'>; budgetMs: number },
  call: RequestCall,
  find: (contractId: string, requestId: string, abortSignal: AbortSignal) => Promise<Item | undefined>,
  found: (item: Item) => Found,
): Promise<Found | EndedEarly> {
  return withinBudget(budgetMs, call.context.invocation, async (abortSignal) => {
    const form = new CallForm(call.context.problems);
    const contractId = form.uuid(call.contractId, 'contractId');
    const requestId = form.uuid(call.requestId, 'requestId');
    const malformed = form.verdict();
    if (malformed) return malformed;

    const item = await find(contractId, requestId, abortSignal);
    if (item?.customerId === call.customerId) return found(item);
    return (
      (await accessRefusal(store, contractId, call.customerId, abortSignal)) ??
      refuse('TERMINATION_REQUEST_NOT_FOUND', [{ field: 'requestId', code: 'requestNotFound' }])
    );
  });
}

/** GET .../termination-requests/{requestId} */
export function getTerminationRequest(deps: ReadDeps, call: RequestCall): Promise<ReadOutcome> {
  return readOwnRequest(deps, call, deps.store.findRequest.bind(deps.store), (item) => ({ kind: 'found', request: view(item) }));
}

const uuidBytes = (uuid: string) => Buffer.from(uuid.replaceAll('-', ''), 'hex');
const uuidOf = (bytes: Buffer) => bytes.toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/**
 * The cursor a client gets: the last request id of its page and the contract it was listed on,
 * their 32 bytes base64url-encoded. Opaque to the client, and bound to its contract: a cursor
 * made on one contract's list is not valid on another's.
 */
export const encodeCursor = (contractId: string, requestId: string) =>
  Buffer.concat([uuidBytes(requestId), uuidBytes(contractId)]).toString('base64url');
/** Every cursor is this long: a longer one is not ours, and is not decoded. */
export const MAX_CURSOR_LENGTH = encodeCursor('00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000').length;

/** The request and the contract a cursor names, or undefined when it is not one encodeCursor made. */
export function cursorParts(cursor: string): { requestId: string; contractId: string } | undefined {
  const bytes = Buffer.from(cursor, 'base64url');
  // Only the one spelling encodeCursor writes: base64url decoding skips what it does not read.
  if (bytes.length !== 32 || bytes.toString('base64url') !== cursor) return undefined;
  const requestId = uuidOf(bytes.subarray(0, 16));
  return isUuid(requestId) ? { requestId, contractId: uuidOf(bytes.subarray(16)) } : undefined;
}

/** The request id a cursor stands on, or undefined when it is not a cursor of this contract's list. */
export function cursorPosition(cursor: string, contractId: string): string | undefined {
  const parts = cursorParts(cursor);
  return parts?.contractId === contractId.toLowerCase() ? parts.requestId : undefined;
}

/**
 * The page a list call asks for: its size and the request id it starts after (where `position`
 * puts the cursor); each problem added to the form.
 */
export function pageAsked(
  form: CallForm,
  call: PageCall,
  position: (cursor: string) => string | undefined,
): { limit: number; after: string | undefined } {
  const limit = call.limit === undefined ? DEFAULT_PAGE_SIZE : /^\d{1,3}$/.test(call.limit) ? Number(call.limit) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_PAGE_SIZE)) form.add({ field: 'limit', code: 'range', min: 1, max: MAX_PAGE_SIZE });
  const tooLong = call.cursor !== undefined && call.cursor.length > MAX_CURSOR_LENGTH;
  const after = call.cursor === undefined || tooLong ? undefined : position(call.cursor);
  if (tooLong) form.add({ field: 'cursor', code: 'maxLength', limit: MAX_CURSOR_LENGTH });
  else if (call.cursor !== undefined && after === undefined) form.add({ field: 'cursor', code: 'invalid' });
  return { limit, after };
}

/** What a list call says of its page: `limit` and `cursor` as they came. */
export interface PageCall {
  limit: string | undefined;
  cursor: string | undefined;
}

/** GET .../termination-requests?limit=&cursor= : newest first. */
export function listTerminationRequests(
  { store, budgetMs, limit: requestLimit, now = () => new Date() }: ListDeps,
  call: ReadCall & PageCall,
): Promise<ReadOutcome> {
  return withinBudget(budgetMs, call.context.invocation, async (abortSignal) => {
    const form = new CallForm(call.context.problems);
    const contractId = form.uuid(call.contractId, 'contractId');
    const { limit, after } = pageAsked(form, call, (cursor) => cursorPosition(cursor, contractId));
    const malformed = form.verdict();
    if (malformed) return malformed;

    // Only the caller's own requests are listed (0015-reading-requests.md, after a change of owner); the
    // first page says, beside them, when the next request is possible while the limit holds (read in the same call).
    const page = await store.listRequests(contractId, call.customerId, { limit, after, requestLimit }, abortSignal);
    const allowedAt = nextRequestAllowedAt(page.limitTimes, requestLimit, Math.floor(now().getTime() / 1000));
    if (page.items.length === 0) {
      const refusal = await accessRefusal(store, contractId, call.customerId, abortSignal);
      if (refusal) return refusal;
    }
    return {
      kind: 'listed',
      requests: page.items.map((item) => view(item)),
      nextCursor: page.lastRequestId === undefined ? undefined : encodeCursor(contractId, page.lastRequestId),
      nextRequestAllowedAt: allowedAt === undefined ? undefined : new Date(allowedAt * 1000).toISOString(),
    };
  });
}
