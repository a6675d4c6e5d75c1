import { randomInt } from 'node:crypto';

/** No 0/O, 1/I/L: a number read aloud over the phone cannot be misheard as another one. */
export const REQUEST_NUMBER_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/**
 * A new request number like `TR-7KQM-X2PF`: random (so it reveals no volumes), 12 characters.
 * 31^8 (about 8.5e11) values make a collision rare; the atomic write makes it impossible.
 */
export function newRequestNumber(): string {
  const pick = () => REQUEST_NUMBER_ALPHABET[randomInt(REQUEST_NUMBER_ALPHABET.length)];
  const group = () => Array.from({ length: 4 }, pick).join('');
  return `TR-${group()}-${group()}`;
}

export const REQUEST_NUMBER_PATTERN = new RegExp(`^TR-[${REQUEST_NUMBER_ALPHABET}]{4}-[${REQUEST_NUMBER_ALPHABET}]{4}$`);
