import type { ReadItem } from '../../lib/dynamodb/items';

/** A store's consistent read that answers `item` and remembers what it was asked, in order. */
export function readAnswering(item?: Record<string, unknown>): { read: ReadItem; asked: unknown[] } {
  const asked: unknown[] = [];
  const read: ReadItem = (table, key) => {
    asked.push({ table, key });
    return Promise.resolve(item);
  };
  return { read, asked };
}
