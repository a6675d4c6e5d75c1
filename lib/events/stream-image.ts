import type { AttributeValue } from 'aws-lambda';

/*
 * A stream record's image as plain values. The Lambda event types an attribute as one object
 * with every type optional, which the SDK's unmarshall does not take. The types read are the
 * ones valueOf names (strings, numbers, booleans, null, lists, maps, string sets); anything else
 * is refused rather than guessed.
 */

export class UnreadableImageError extends Error {
  constructor(what: string) {
    super(`Stream image holds ${what}`);
    this.name = 'UnreadableImageError';
  }
}

function valueOf(attribute: AttributeValue): unknown {
  if (attribute.S !== undefined) return attribute.S;
  if (attribute.N !== undefined) return Number(attribute.N);
  if (attribute.BOOL !== undefined) return attribute.BOOL;
  if (attribute.NULL !== undefined) return null;
  if (attribute.L !== undefined) return attribute.L.map(valueOf);
  if (attribute.M !== undefined) return imageValues(attribute.M);
  if (attribute.SS !== undefined) return [...attribute.SS];
  throw new UnreadableImageError(`an attribute of a type the table does not use: ${Object.keys(attribute).join(',')}`);
}

export function imageValues(image: Record<string, AttributeValue>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(image).map(([name, attribute]) => [name, valueOf(attribute)]));
}
