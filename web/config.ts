import type { Language } from './texts.ts';

/*
 * What the page is told by /config.json (scripts/local/page-server.ts serves it): the API's
 * address, the customer's token, and the customer's contracts as the personal account knows them
 * (product name, masked number, status, end date), which the API does not own and never answers
 * with. Read strictly: a config the page cannot use is said to be so, never half used.
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

export interface PageConfig {
  apiUrl: string;
  token: string;
  customerId: string;
  contracts: ContractChoice[];
  /** Bank details to start the form with (the demo's, so one click submits). */
  bankDetails?: { bik: string; accountNumber: string; recipientName: string };
  /** How often the list of requests is read again (seconds). */
  refreshSeconds: number;
  /** The demo's customers the page can be shown as (`?customer=<id>`), and the one it is shown as. */
  customers?: { id: string; name: string }[];
  customer?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

export function parseConfig(value: unknown): PageConfig {
  if (!isRecord(value)) throw new Error('config.json is not an object');
  const { apiUrl, token, customerId, contracts } = value;
  if (typeof apiUrl !== 'string' || typeof token !== 'string' || typeof customerId !== 'string' || !Array.isArray(contracts)) {
    throw new Error('config.json needs apiUrl, token, customerId and contracts');
  }
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
    ? listed.filter(isRecord).flatMap(({ id, name }) => (typeof id === 'string' && typeof name === 'string' ? [{ id, name }] : []))
    : [];
  const customer = value['customer'];
  return {
    apiUrl,
    token,
    customerId,
    contracts: contracts.map(parseContract),
    refreshSeconds,
    ...(bankDetails ? { bankDetails } : {}),
    ...(customers.length > 0 ? { customers } : {}),
    ...(typeof customer === 'string' ? { customer } : {}),
  };
}
