import { submittedEventSchema } from '../api-model/event-schemas';
import { terminationRequestInputSchema, type Status, type TerminationRequestInput } from '../api-model/schemas';
import { validateTerminationInput } from '../api-model/validator';
import { isStatus, MalformedItemError, type RequestHistory, type StatusChange } from '../termination/ports';
import type { Item } from './items';
import type { TableKey } from './keys';
import type { RequestIds } from './request-reads';

/*
 * The request item's one home: its shape as the writes store it (create-transaction.ts makes it,
 * decision-write.ts and withdrawal-write.ts move its status and append an entry to its
 * statusHistory in that same write), and its reading as the domain's RequestHistory, which the
 * events are built from (lib/events). Attributes are named here through the item's type, so a
 * renamed attribute fails to compile in the write that stores it and in the reading below;
 * nothing outside lib/dynamodb reads one by name.
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
    /** Set by the write that makes it final: when the table's TTL deletes it (docs/decisions/0021-retention.md). */
    expiresAt?: number;
  };

/** A request number's item (NUMBER#<requestNumber>): which request the number names. */
export type NumberItem = TableKey & { kind: 'REQUEST_NUMBER'; requestId: string; contractId: string };

/** An attribute of a request item, by a name its type has. */
const attribute = (item: Item, name: keyof RequestItem): unknown => item[name];
const entryAttribute = (entry: Item, name: keyof DecisionEntry | keyof WithdrawalEntry): unknown => entry[name];

const isItem = (value: unknown): value is Item => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalText = (value: unknown): value is string | undefined => value === undefined || typeof value === 'string';

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
  if (attribute(item, 'kind') !== 'REQUEST') return undefined;
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

/** The request a number item names; undefined for any other item. */
export function requestOfNumber(item: Item): RequestIds | undefined {
  const read = (name: keyof NumberItem): unknown => item[name];
  const requestId = read('requestId');
  const contractId = read('contractId');
  if (read('kind') !== 'REQUEST_NUMBER') return undefined;
  if (typeof requestId !== 'string' || typeof contractId !== 'string') throw new MalformedItemError('request number item');
  return { requestId, contractId };
}
