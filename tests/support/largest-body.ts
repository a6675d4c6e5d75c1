import { randomUUID } from 'node:crypto';
import { REASON_CODES, terminationRequestInputSchema } from '../../lib/api-model/schemas';
import { USABLE_DOCUMENT_STATUS } from '../../lib/termination/documents';
import { bankDetails, validBody } from './bodies';

/*
 * The largest body a client's JSON encoder sends for a valid create: every text at
 * its maximum length in code points, each code point outside the BMP, and the encoder escaping
 * everything that is not ASCII (`\uD835\uDC00`: 12 bytes a code point, the most JSON ever spends
 * on one), the longest reason code and the most document ids. Padding with spaces or escaping
 * plain ASCII would make it larger still, but no encoder does that; the service refuses such a
 * body over 16 KiB as any other (400 MALFORMED_REQUEST).
 */

const properties = terminationRequestInputSchema.properties;
/** A letter outside the BMP (MATHEMATICAL BOLD CAPITAL A): a name needs at least one letter. */
const LETTER = '\u{1D400}';
/** A symbol outside the BMP (GRINNING FACE): plain customer text. */
const SYMBOL = '\u{1F600}';

/** JSON as an ASCII-only encoder writes it (Java's, Python's ensure_ascii, ...). */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The largest valid input; `documentIds` as many as a request may name, made up unless given
 * (a create that is to succeed names the caller's own: docs/decisions/0019-documents.md).
 */
export function largestValidInput(
  documentIds: string[] = Array.from({ length: properties.documentIds.maxItems }, () => randomUUID()),
): Record<string, unknown> {
  const longestReason = [...REASON_CODES].sort((a, b) => b.length - a.length)[0];
  return validBody({
    reasonCode: longestReason,
    bankDetails: bankDetails({ recipientName: LETTER.repeat(properties.bankDetails.properties.recipientName.maxLength) }),
    comment: SYMBOL.repeat(properties.comment.maxLength),
    documentIds,
  });
}

/** The largest valid create body, as sent. */
export function largestValidBody(documentIds?: string[]): string {
  return asciiJson(largestValidInput(documentIds));
}

/** Ids of as many documents as a request may name, uploaded and usable, of the customer's own, for `addDocuments`. */
export function documentsOf(
  customerId: string,
): { documentId: string; customerId: string; status: string; fileName: string; uploadedAt: string }[] {
  return Array.from({ length: properties.documentIds.maxItems }, (_, i) => ({
    documentId: randomUUID(),
    customerId,
    status: USABLE_DOCUMENT_STATUS,
    fileName: `document-${i + 1}.pdf`,
    uploadedAt: '2026-11-20T10:00:00.000Z',
  }));
}
