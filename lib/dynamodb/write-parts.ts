import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Item } from './items';

/*
 * A write as named parts: each item of a TransactWriteItems carries the name its refusal is
 * reported by (and, where a write holds several of a kind, as the create's documents, its place
 * among them). termination-table.ts sends the items in the parts' order and gives a refusal back
 * by name; no write numbers its items by hand.
 */

export type WriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A part of a write, as a refusal names it: `at` is its place among the parts of its name. */
export interface PartName<Name extends string> {
  name: Name;
  at?: number;
}

export interface Part<Name extends string> extends PartName<Name> {
  item: WriteItem;
}

/** A TransactWriteItems built from named parts; `input` is what DynamoDB is sent. */
export interface NamedTransaction<Name extends string> {
  parts: readonly PartName<Name>[];
  input: TransactWriteCommandInput;
}

export function namedTransaction<Name extends string>(parts: readonly Part<Name>[], clientRequestToken?: string): NamedTransaction<Name> {
  return {
    parts: parts.map(({ name, at }) => (at === undefined ? { name } : { name, at })),
    input: {
      ...(clientRequestToken === undefined ? {} : { ClientRequestToken: clientRequestToken }),
      TransactItems: parts.map((part) => part.item),
    },
  };
}

/** The item of a write's part, by its name and, among several of that name, its place; undefined when the write has none. */
export function partItem<Name extends string>(write: NamedTransaction<Name>, name: Name, at?: number): WriteItem | undefined {
  const index = write.parts.findIndex((part) => part.name === name && part.at === at);
  return index < 0 ? undefined : write.input.TransactItems?.[index];
}

/** The items of every part of a name, in order (the create's documents). */
export function partItems<Name extends string>(write: NamedTransaction<Name>, name: Name): WriteItem[] {
  return write.parts.flatMap((part, index) => (part.name === name ? (write.input.TransactItems?.[index] ?? []) : []));
}

/**
 * The parts of a refused write whose condition failed, each with its place in the write, in
 * order: DynamoDB gives a cancelled transaction's reasons in the order of its items, which is
 * the order of its parts.
 */
export function failedParts<Name extends string>(
  write: NamedTransaction<Name>,
  reasons: readonly CancellationReason[],
): { part: PartName<Name>; index: number; reason: CancellationReason }[] {
  return reasons.flatMap((reason, index) => {
    const part = write.parts[index];
    return reason.Code === 'ConditionalCheckFailed' && part !== undefined ? [{ part, index, reason }] : [];
  });
}

/** A part as a message names it: its name, and its place among several of that name. */
export const partLabel = ({ name, at }: PartName<string>): string => (at === undefined ? name : `${name} ${String(at)}`);

/**
 * Why a write that is not the service's own (an operator command's) was refused, in words that
 * name each part whose condition failed: undefined when the error is not a cancelled transaction.
 */
export function refusalOf(write: NamedTransaction<string>, error: unknown): string | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const failed = failedParts(write, error.CancellationReasons ?? []).map(({ part }) => partLabel(part));
  return failed.length === 0 ? 'another write got in the way' : `refused by: ${failed.join(', ')}`;
}

/**
 * The first condition of a refused write, in the order of its parts (and every part whose
 * condition failed: the create names each refused document), with the item it concerned: as the
 * failure returned it, or, where it came back without it (DynamoDB Local, a conflicting writer),
 * as the store's consistent read found it just after (`readAfter`). Only the items the write asks
 * back (ReturnValuesOnConditionCheckFailure: ALL_OLD) are ever read; for any other, `item` is
 * undefined. termination-table.ts finds it; the explain function of each write reads it.
 */
export interface Failure<Name extends string = string> {
  part: Name;
  item: Item | undefined;
  readAfter: boolean;
  /** Every part whose condition failed, in order (the first is `part`). */
  failed: readonly PartName<Name>[];
}
