import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { submittedEventSchema } from '../api-model/event-schemas';
import { isStatus, terminationRequestInputSchema, type Status, type TerminationRequestInput } from '../api-model/schemas';
import { validateTerminationInput } from '../api-model/validator';
import type { Decision } from '../termination/ports/decision';
import type { NewRequest, RequestState, StatusMove, StoredRequest, WithdrawalIntent } from '../termination/ports/store';
import { MalformedItemError } from '../termination/ports/errors';
import type { RequestHistory, StatusChange } from '../termination/ports/request-history';
import type { Item } from './items';
import { requestKeyOf, type TableKey } from './keys';

/*
 * The request item's one home: its shape, every write of it (the create's Put, the decision's
 * and the withdrawal's updates, which move its status and append an entry to its statusHistory;
 * create-transaction.ts, decision-write.ts and withdrawal-write.ts put them in their
 * transactions; an erasure's Delete and the migration's update, customer-data.ts and
 * backfill.ts), every condition and filter on it (the list's filter to the caller's own items),
 * and every reading of it: as the domain's StoredRequest, as the RequestState a refused status
 * write found, as the RequestHistory the events are built from (lib/events), as the ids an index
 * item carries, and as what the operator commands need of it (customer-data.ts).
 * Attributes are named here through the item's type (`attribute`, `name`), so a renamed
 * attribute fails to compile in every write that stores it and every reading; no other module
 * names one.
 */

/** A back-office decision applied (decision-write.ts). */
export interface DecisionEntry {
  status: Status;
  /** The decision's own id, which decisionIds also keeps. */
  eventId: string;
  /** When the back office decided. */
  occurredAt: string;
  appliedAt: string;
  reason?: string;
}

/** The customer's withdrawal (withdrawal-write.ts). */
export interface WithdrawalEntry {
  status: Status;
  by: 'customer';
  occurredAt: string;
  appliedAt: string;
}

/** One entry of a request's statusHistory: a status it reached, appended by the write that moved it there. */
export type HistoryEntry = DecisionEntry | WithdrawalEntry;

/** The request item as stored under CONTRACT#<contractId> / REQUEST#<requestId> (keys.ts). */
export type RequestItem = TableKey &
  TerminationRequestInput & {
    kind: 'REQUEST';
    requestId: string;
    requestNumber: string;
    status: Status;
    customerId: string;
    /**
     * The customer again, as the partition key of the index by customer (customer-requests.ts):
     * only request items carry it, so the index holds nothing else. Absent on items created before it.
     */
    requestedBy?: string;
    contractId: string;
    idempotencyKey: string;
    /** The withdrawal's key, set by the withdrawal: an erasure empties its key record too (customer-data.ts). */
    withdrawalKey?: string;
    createdAt: string;
    /** Set by every write that moves the status: the decision's occurredAt, or the withdrawal's time. */
    statusChangedAt?: string;
    updatedAt?: string;
    /** The back office's words on the current status. */
    statusReason?: string;
    /** The back office's decisions applied, in order. */
    decisionIds?: string[];
    /** Every status reached after the first, in order: what the events of the request are rebuilt from. */
    statusHistory?: HistoryEntry[];
    /** Set by the write that makes it final: when the table's TTL deletes it (docs/decisions/0024-retention-by-calendar-year.md). */
    expiresAt?: number;
  };

/**
 * A request number's item (NUMBER#<requestNumber>): the number alone, which is all its uniqueness
 * needs; nothing in it points to a person, so it may outlive its request
 * (docs/decisions/0026-a-request-by-its-number.md). The request is found by its number through
 * the index by number (request-by-number.ts).
 */
export type NumberItem = TableKey & { kind: 'REQUEST_NUMBER' };
export const NUMBER_KIND = 'REQUEST_NUMBER' satisfies NumberItem['kind'];

/** The request item's `kind`, which tells it from every other item of the table. */
export const REQUEST_KIND = 'REQUEST' satisfies RequestItem['kind'];

/** An attribute of a request item, by a name its type has. */
const attribute = (item: Item, name: keyof RequestItem): unknown => item[name];
/** An item's attributes as read back, by the names the type has: destructuring another name does not compile. */
type Attributes = Partial<Record<keyof RequestItem, unknown>>;
/** An attribute's name in an expression, checked against the item's type. */
const name = <Name extends keyof RequestItem>(attributeName: Name): Name => attributeName;
/** A text attribute of a request item; undefined when it is absent or not text. */
const text = (item: Item, attributeName: keyof RequestItem): string | undefined => {
  const value = attribute(item, attributeName);
  return typeof value === 'string' ? value : undefined;
};

/** Whether an item of the table is a request item. */
export const isRequestItem = (item: Item): boolean => attribute(item, 'kind') === REQUEST_KIND;

const isItem = (value: unknown): value is Item => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalText = (value: unknown): value is string | undefined => value === undefined || typeof value === 'string';

type Put = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Put']>;
type Update = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Update']> & {
  ReturnValuesOnConditionCheckFailure: 'ALL_OLD';
};

/** The create's Put of the new request: on condition that no request has its id. */
export function newRequestPut(tableName: string, request: NewRequest): Put {
  return {
    TableName: tableName,
    Item: {
      ...requestKeyOf(request.contractId, request.requestId),
      kind: REQUEST_KIND,
      requestId: request.requestId,
      requestNumber: request.requestNumber,
      status: request.response.status,
      customerId: request.customerId,
      requestedBy: request.customerId,
      contractId: request.contractId,
      idempotencyKey: request.idempotencyKey,
      createdAt: request.response.createdAt,
      ...request.input,
    } satisfies RequestItem,
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

/** The statuses a request may be in, as a condition on `#status` with its values (:from0, :from1, ... by default). */
function statusIn(statuses: readonly Status[], valuePrefix = 'from'): { expression: string; values: Record<string, Status> } {
  return {
    expression: `#status IN (${statuses.map((_, i) => `:${valuePrefix}${i}`).join(', ')})`,
    values: Object.fromEntries(statuses.map((status, i) => [`:${valuePrefix}${i}`, status])),
  };
}

/** `status` is one of DynamoDB's reserved words: every expression names it through `#status`. */
const STATUS_NAME = { '#status': name('status') };

/** A condition that holds for the items of one customer, the `value` placeholder bound to their id. */
function customerIs(customerId: string, value = ':customerId'): { expression: string; values: Record<string, string> } {
  return { expression: `${name('customerId')} = ${value}`, values: { [value]: customerId } };
}

/**
 * The filter of a contract's list to the caller's own items (termination-table.ts): their
 * requests, and their limit record, which names its customer by the same attribute
 * (request-limit.ts).
 */
export const ownItemsFilter = (customerId: string): { FilterExpression: string; ExpressionAttributeValues: Record<string, string> } => {
  const own = customerIs(customerId);
  return { FilterExpression: own.expression, ExpressionAttributeValues: own.values };
};

/**
 * A back-office decision's update (docs/decisions/0017-lifecycle.md): conditioned on the
 * statuses it may move from; on a final status it sets the request's expiry
 * (docs/decisions/0024-retention-by-calendar-year.md).
 */
export function decisionUpdate(tableName: string, decision: Decision, move: StatusMove, appliedAt: string): Update {
  const from = statusIn(move.from);
  const entry = {
    status: decision.status,
    eventId: decision.eventId,
    occurredAt: decision.occurredAt,
    appliedAt,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  } satisfies DecisionEntry;
  return {
    TableName: tableName,
    Key: { ...requestKeyOf(decision.contractId, decision.requestId) },
    UpdateExpression: [
      `SET #status = :status, ${name('statusChangedAt')} = :occurredAt, ${name('updatedAt')} = :appliedAt,`,
      `${name('decisionIds')} = list_append(if_not_exists(${name('decisionIds')}, :none), :eventIds),`,
      `${name('statusHistory')} = list_append(if_not_exists(${name('statusHistory')}, :none), :entries)`,
      // A final status starts the retention period: TTL deletes the request after it.
      move.retainUntil === undefined ? '' : `, ${name('expiresAt')} = :retainUntil`,
      decision.reason === undefined ? `REMOVE ${name('statusReason')}` : `, ${name('statusReason')} = :reason`,
    ]
      .filter((part) => part !== '')
      .join(' '),
    ConditionExpression: from.expression,
    ExpressionAttributeNames: STATUS_NAME,
    ExpressionAttributeValues: {
      ':status': decision.status,
      ':occurredAt': decision.occurredAt,
      ':appliedAt': appliedAt,
      ':none': [],
      ':eventIds': [decision.eventId],
      ':entries': [entry],
      ...(decision.reason === undefined ? {} : { ':reason': decision.reason }),
      ...(move.retainUntil === undefined ? {} : { ':retainUntil': move.retainUntil }),
      ...from.values,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * The customer's withdrawal's update (docs/decisions/0018-withdrawal.md): to WITHDRAWN, final,
 * which sets the request's expiry, if the request is the caller's and in a status it may be
 * withdrawn from.
 */
export function withdrawalUpdate(tableName: string, intent: WithdrawalIntent): Update {
  const from = statusIn(intent.from);
  const { withdrawnAt, status } = intent.response;
  return {
    TableName: tableName,
    Key: { ...requestKeyOf(intent.contractId, intent.requestId) },
    UpdateExpression:
      `SET #status = :withdrawn, ${name('statusChangedAt')} = :at, ${name('updatedAt')} = :at, ` +
      `${name('statusHistory')} = list_append(if_not_exists(${name('statusHistory')}, :none), :entries), ` +
      // WITHDRAWN is final: the retention period starts, and TTL deletes the request after it.
      // The withdrawal's key, so an erasure finds its key record (customer-data.ts).
      `${name('expiresAt')} = :retainUntil, ${name('withdrawalKey')} = :withdrawalKey REMOVE ${name('statusReason')}`,
    ConditionExpression: `attribute_exists(pk) AND ${customerIs(intent.customerId).expression} AND ${from.expression}`,
    ExpressionAttributeNames: STATUS_NAME,
    ExpressionAttributeValues: {
      ':withdrawn': status,
      ':at': withdrawnAt,
      ':none': [],
      ':entries': [{ status, by: 'customer', occurredAt: withdrawnAt, appliedAt: withdrawnAt } satisfies WithdrawalEntry],
      ':customerId': intent.customerId,
      ':retainUntil': intent.retainUntil,
      ':withdrawalKey': intent.idempotencyKey,
      ...from.values,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

type Delete = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Delete']>;

/**
 * An erasure's Delete of a request item (docs/decisions/0025-erasure.md): only while its status
 * is one an erasure may take and, where `customerId` is given, while it is that customer's; a
 * write between the read and the delete cannot make it erase an active request.
 */
export function requestErasure(tableName: string, key: TableKey, erasable: readonly Status[], customerId?: string): Delete {
  const final = statusIn(erasable, 'erasable');
  const owner = customerId === undefined ? undefined : customerIs(customerId, ':customer');
  return {
    TableName: tableName,
    Key: { ...key },
    ConditionExpression: owner === undefined ? final.expression : `${owner.expression} AND ${final.expression}`,
    ExpressionAttributeNames: STATUS_NAME,
    ExpressionAttributeValues: { ...owner?.values, ...final.values },
  };
}

/**
 * The request items made before the index by customer, which lack its key (backfill.ts): as a
 * filter of a scan, its placeholders `#requestedBy` and `:request`.
 */
export const LACKS_REQUESTED_BY = {
  expression: `${name('kind')} = :request AND attribute_not_exists(#requestedBy)`,
  names: { '#requestedBy': name('requestedBy') },
  values: { ':request': REQUEST_KIND },
} as const;

/**
 * The migration's update of a request item made before the index by customer (backfill.ts): its
 * `requestedBy` copied from its own `customerId` inside the update, only while it is a request
 * item that has a customer and still lacks it.
 */
export function requestedByRepair(tableName: string, key: TableKey) {
  return {
    TableName: tableName,
    Key: { ...key },
    UpdateExpression: `SET #requestedBy = ${name('customerId')}`,
    ConditionExpression: `${name('kind')} = :kind AND attribute_not_exists(#requestedBy) AND attribute_exists(${name('customerId')})`,
    ExpressionAttributeNames: { '#requestedBy': name('requestedBy') },
    ExpressionAttributeValues: { ':kind': REQUEST_KIND },
  };
}

/** A request's ids as an index item carries them (the index by customer, the index by number); undefined when one is missing. */
export function requestIdsOf(item: Item): { requestId: string; contractId: string } | undefined {
  const requestId = text(item, 'requestId');
  const contractId = text(item, 'contractId');
  return requestId === undefined || contractId === undefined ? undefined : { requestId, contractId };
}

/** What the operator commands read of a request item (customer-data.ts): its ids, number, customer and status, and the keys of its calls. */
export interface RequestRefs {
  requestId: string;
  contractId: string;
  requestNumber: string;
  customerId: unknown;
  status: unknown;
  /** The create's key, and the withdrawal's when it was withdrawn: their key records name the request. */
  idempotencyKey: string | undefined;
  withdrawalKey: string | undefined;
}

export function requestRefsOf(item: Item): RequestRefs {
  return {
    requestId: String(attribute(item, 'requestId')),
    contractId: String(attribute(item, 'contractId')),
    requestNumber: String(attribute(item, 'requestNumber')),
    customerId: attribute(item, 'customerId'),
    status: attribute(item, 'status'),
    idempotencyKey: text(item, 'idempotencyKey'),
    withdrawalKey: text(item, 'withdrawalKey'),
  };
}

/** A request item read back as the domain's StoredRequest. */
export function asStoredRequest(item: Item): StoredRequest {
  const { requestId, requestNumber, customerId, status, createdAt, statusReason }: Attributes = item;
  if (
    typeof requestId !== 'string' ||
    typeof requestNumber !== 'string' ||
    typeof customerId !== 'string' ||
    !isStatus(status) ||
    typeof createdAt !== 'string' ||
    !optionalText(statusReason)
  ) {
    throw new MalformedItemError(`request item ${String(requestId)}`);
  }
  return { requestId, requestNumber, customerId, status, createdAt, ...(statusReason === undefined ? {} : { statusReason }) };
}

/** A request item as a refused status write found it. */
export function asRequestState(item: Item, requestId: string): RequestState {
  const { customerId, status, statusReason, decisionIds }: Attributes = item;
  if (!isStatus(status)) throw new MalformedItemError(`request item ${requestId}: status`);
  if (!optionalText(statusReason)) throw new MalformedItemError(`request item ${requestId}: statusReason`);
  return {
    customerId: typeof customerId === 'string' ? customerId : undefined,
    status,
    statusReason,
    // Ids of decisions applied: anything but a list of them names none.
    decisionIds: Array.isArray(decisionIds) ? decisionIds.filter((id): id is string => typeof id === 'string') : [],
  };
}
const entryAttribute = (entry: Item, name: keyof DecisionEntry | keyof WithdrawalEntry): unknown => entry[name];

/** The status every request is created in: the one its TerminationRequestSubmitted carries. */
const CREATED_STATUS: Status = submittedEventSchema.properties.status.const;

/** What the customer submitted: the create's input, stored beside the request's own attributes. */
const INPUT_ATTRIBUTES: readonly string[] = Object.keys(terminationRequestInputSchema.properties);

/**
 * The changes a statusHistory records. Each entry's previous status is the one the entry before
 * reached (the writes that append them are conditioned, so the list is the order they happened
 * in), and the first one's is the status every request is created in. A request reaches each
 * status at most once: the events' ids rely on it.
 */
function changesOf(history: unknown, what: string): StatusChange[] {
  if (history === undefined) return [];
  if (!Array.isArray(history)) throw new MalformedItemError(`${what}: statusHistory`);
  const changes: StatusChange[] = [];
  let previousStatus = CREATED_STATUS;
  for (const entry of history) {
    const status = isItem(entry) ? entryAttribute(entry, 'status') : undefined;
    const changedAt = isItem(entry) ? entryAttribute(entry, 'occurredAt') : undefined;
    const reason = isItem(entry) ? entryAttribute(entry, 'reason') : undefined;
    if (
      !isItem(entry) ||
      !isStatus(status) ||
      status === CREATED_STATUS ||
      changes.some((change) => change.status === status) ||
      typeof changedAt !== 'string' ||
      !optionalText(reason)
    )
      throw new MalformedItemError(`${what}: statusHistory entry ${changes.length}`);
    const decisionEventId = entryAttribute(entry, 'eventId');
    const common = { status, previousStatus, changedAt, ...(reason === undefined ? {} : { reason }) };
    if (entryAttribute(entry, 'by') === 'customer') changes.push({ ...common, changedBy: 'CUSTOMER' });
    else if (typeof decisionEventId === 'string') changes.push({ ...common, changedBy: 'BACK_OFFICE', decisionEventId });
    else throw new MalformedItemError(`${what}: statusHistory entry ${changes.length} names no one who made it`);
    previousStatus = status;
  }
  return changes;
}

/**
 * A request item read as the request's history; undefined for any other item of the table (a
 * slot, a key, a number). A request item that breaks the writes' own rules is MalformedItemError.
 */
export function requestHistoryOf(item: Item): RequestHistory | undefined {
  if (!isRequestItem(item)) return undefined;
  const requestId = attribute(item, 'requestId');
  const requestNumber = attribute(item, 'requestNumber');
  const contractId = attribute(item, 'contractId');
  const customerId = attribute(item, 'customerId');
  const createdAt = attribute(item, 'createdAt');
  const status = attribute(item, 'status');
  const what = `request item ${String(requestId)}`;
  if (
    typeof requestId !== 'string' ||
    typeof requestNumber !== 'string' ||
    typeof contractId !== 'string' ||
    typeof customerId !== 'string' ||
    typeof createdAt !== 'string' ||
    !isStatus(status)
  )
    throw new MalformedItemError(`${what}: its ids, customer, creation time or status`);
  const submitted = validateTerminationInput(
    Object.fromEntries(INPUT_ATTRIBUTES.filter((name) => item[name] !== undefined).map((name) => [name, item[name]])),
  );
  if (!submitted.ok) throw new MalformedItemError(`${what}: what was submitted (${submitted.problems.map((p) => p.field).join(', ')})`);
  const changes = changesOf(attribute(item, 'statusHistory'), what);
  if (status !== (changes.at(-1)?.status ?? CREATED_STATUS))
    throw new MalformedItemError(`${what}: a status its statusHistory never reached`);
  return { requestId, requestNumber, contractId, customerId, createdAt, status, submission: submitted.input, changes };
}
