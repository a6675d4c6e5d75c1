import type { Language } from './texts.ts';

/*
 * What the page is told by /config.json (scripts/local/page-server.ts serves it): the API's
 * address, the customer's token, and the customer's contracts as the personal account knows them
 * (product name, masked number, status, end date), which the API does not own and never answers
 * with, and the bank's business time zone, where the service decides "today" (not the device's). Read strictly: a config the page cannot use is said to be so, never half used.
 */

export interface ContractChoice {
  contractId: string;
  status: string;
  endDate?: string;
  /** The product as the customer knows it, in each language ("Mortgage"). */
  product: Record<Language, string>;
  /** The contract's number with all but its end hidden ("•• 4821"). */
  maskedNumber: string;
}

/**
 * One of the customer's documents uploaded to the bank and usable, as the personal account lists
 * them from the documents service: the page offers them by file name, and a request names the
 * ids of those chosen (docs/decisions/0019-documents.md).
 */
export interface DocumentChoice {
  documentId: string;
  fileName: string;
}

export interface PageConfig {
  apiUrl: string;
  token: string;
  customerId: string;
  contracts: ContractChoice[];
  /** The IANA zone the service decides "today" in: the page's earliest date is the same day. */
  businessTimeZone: string;
  /** The customer's uploaded documents the form offers; none offered when absent. */
  documents?: DocumentChoice[];
  /** Bank details to start the form with (the demo's, so one click submits). */
  bankDetails?: { bik: string; accountNumber: string; recipientName: string };
  /** How often the list of requests is read again (seconds). */
  refreshSeconds: number;
  /** The demo's customers the page can be shown as (`?customer=<id>`), each named in each language, and the one it is shown as. */
  customers?: { id: string; name: Record<Language, string> }[];
  customer?: string;
}

/** The demo customer the page is shown as: `?customer=<id>` (page-server.ts offers Anna and Boris). */
const customer = new URLSearchParams(location.search).get('customer');

/**
 * The page's config as the personal account's back end has it now: read at the start, and again
 * with every refresh of the list, so a contract the bank has closed meanwhile shows as closed.
 */
export async function loadConfig(): Promise<PageConfig> {
  const answer = await fetch(`/config.json${customer === null ? '' : `?customer=${encodeURIComponent(customer)}`}`, {
    cache: 'no-store',
  });
  return parseConfig(await answer.json());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function parseContract(value: unknown): ContractChoice {
  if (!isRecord(value)) throw new Error('config.json: a contract that is not an object');
  const { contractId, status, endDate, product, maskedNumber } = value;
  if (
    typeof contractId !== 'string' ||
    typeof status !== 'string' ||
    typeof maskedNumber !== 'string' ||
    !isRecord(product) ||
    typeof product['en'] !== 'string' ||
    typeof product['ru'] !== 'string'
  ) {
    throw new Error('config.json: a contract needs contractId, status, product (en, ru) and maskedNumber');
  }
  return {
    contractId,
    status,
    product: { en: product['en'], ru: product['ru'] },
    maskedNumber,
    ...(typeof endDate === 'string' ? { endDate } : {}),
  };
}

function parseDocument(value: unknown): DocumentChoice {
  if (!isRecord(value) || typeof value['documentId'] !== 'string' || typeof value['fileName'] !== 'string') {
    throw new Error('config.json: a document needs documentId and fileName');
  }
  return { documentId: value['documentId'], fileName: value['fileName'] };
}

export function parseConfig(value: unknown): PageConfig {
  if (!isRecord(value)) throw new Error('config.json is not an object');
  const { apiUrl, token, customerId, contracts, businessTimeZone } = value;
  if (
    typeof apiUrl !== 'string' ||
    typeof token !== 'string' ||
    typeof customerId !== 'string' ||
    !Array.isArray(contracts) ||
    typeof businessTimeZone !== 'string'
  ) {
    throw new Error('config.json needs apiUrl, token, customerId, contracts and businessTimeZone');
  }
  if (!isTimeZone(businessTimeZone)) throw new Error(`config.json: businessTimeZone is no time zone: ${businessTimeZone}`);
  const bank = value['bankDetails'];
  const bankDetails =
    isRecord(bank) &&
    typeof bank['bik'] === 'string' &&
    typeof bank['accountNumber'] === 'string' &&
    typeof bank['recipientName'] === 'string'
      ? { bik: bank['bik'], accountNumber: bank['accountNumber'], recipientName: bank['recipientName'] }
      : undefined;
  const refresh = value['refreshSeconds'];
  const refreshSeconds = typeof refresh === 'number' && refresh >= 1 ? refresh : 10;
  const listed = value['customers'];
  const customers = Array.isArray(listed)
    ? listed
        .filter(isRecord)
        .flatMap(({ id, name }) =>
          typeof id === 'string' && isRecord(name) && typeof name['en'] === 'string' && typeof name['ru'] === 'string'
            ? [{ id, name: { en: name['en'], ru: name['ru'] } }]
            : [],
        )
    : [];
  const customer = value['customer'];
  const documents = value['documents'];
  if (documents !== undefined && !Array.isArray(documents)) throw new Error('config.json: documents must be a list');
  return {
    apiUrl,
    token,
    customerId,
    contracts: contracts.map(parseContract),
    businessTimeZone,
    ...(documents === undefined ? {} : { documents: documents.map(parseDocument) }),
    refreshSeconds,
    ...(bankDetails ? { bankDetails } : {}),
    ...(customers.length > 0 ? { customers } : {}),
    ...(typeof customer === 'string' ? { customer } : {}),
  };
}
