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
