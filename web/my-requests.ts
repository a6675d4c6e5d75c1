import type { CustomerTerminationRequestList, TerminationRequest } from '../client/index.ts';
import { client } from './api.ts';
import type { PageConfig } from './config.ts';
import { formatMoment } from './dates.ts';
import { byId } from './elements.ts';
import { apiText, paragraph, requestItem, span, statusLabel } from './render.ts';
import { detailsDisclosure } from './request-details.ts';
import { requestOf, rereadSize, state, t } from './state.ts';

/*
 * "All my requests": the customer's requests on every contract, newest first, a page at a time
 * (GET /api/v1/termination-requests, docs/decisions/0023-a-customers-requests-by-index.md), each
 * with its contract, its status and what was sent (request-details.ts). The API reads them from an
 * index that follows the requests a moment late: a request this page has just made is shown from
 * what the page knows until the API lists it too.
 */

const section = byId('my-requests', HTMLElement);
const list = byId('my-requests-list', HTMLUListElement);
const empty = byId('my-requests-empty', HTMLElement);
const failed = byId('my-requests-failed', HTMLElement);
const retry = byId('my-requests-retry', HTMLButtonElement);
const more = byId('my-requests-more', HTMLButtonElement);

type Listed = CustomerTerminationRequestList['items'][number];

/** The requests on show as the API listed them, and where the next page starts. */
let shown: { items: Listed[]; nextCursor?: string } | undefined;
let couldNotRead = false;
/** Counts the reads: only the newest one's answer is shown. */
let generation = 0;

/** The contract as the customer knows it ("Credit card •• 4821"), or words saying the page does not list it. */
function contractName(contractId: string): string {
  const contract = state.config?.contracts.find((choice) => choice.contractId === contractId);
  // A contract the page does not list (closed and gone from the contracts table) is never named by its id: an id is no word for a customer.
  return contract === undefined ? t('contractNotListed') : `${contract.product[state.language]} ${contract.maskedNumber}`;
}

/** The request as the page knows it now (a withdrawal on this page, a newer read), else as listed. */
const latest = ({ request }: Listed): TerminationRequest => requestOf(request.requestId) ?? request;

function renderItem(entry: Listed): HTMLLIElement {
  const request = latest(entry);
  return requestItem(
    request,
    paragraph('contract', t('onContract', { contract: contractName(entry.contractId) })),
    paragraph('status', `${t('status')}: `, span('status-label', statusLabel(request))),
    paragraph('sent', t('sentOn', { date: formatMoment(request.createdAt) })),
    paragraph('message', ...apiText(request.message)),
    detailsDisclosure(entry.contractId, request),
  );
}

/** The requests on show, with the one this page has just made first if the API does not list it yet. */
function onShow(): Listed[] {
  const items = shown?.items ?? [];
  const made = state.shown?.made === true ? state.shown : undefined;
  const madeRequest = made === undefined ? undefined : requestOf(made.requestId);
  if (made === undefined || madeRequest === undefined || items.some((entry) => entry.request.requestId === made.requestId)) return items;
  return [{ contractId: made.contractId, request: madeRequest }, ...items];
}

export function renderMyRequests(): void {
  const items = onShow();
  section.setAttribute('aria-busy', String(shown === undefined && !couldNotRead));
  failed.hidden = !couldNotRead;
  empty.hidden = shown === undefined || items.length > 0;
  more.hidden = shown?.nextCursor === undefined;
  list.replaceChildren(...items.map(renderItem));
}

/** The first page, read again (statuses move without a reload), or (`next`) the page after those on show. */
export async function loadMyRequests(loaded: PageConfig, next = false): Promise<void> {
  const asked = ++generation;
  const cursor = next ? shown?.nextCursor : undefined;
  const limit = next ? undefined : rereadSize(shown?.items.length ?? 0);
  const result = await client(loaded).listCustomerTerminationRequests({
    ...(limit === undefined ? {} : { limit }),
    ...(cursor ? { cursor } : {}),
  });
  if (asked !== generation) return;
  if (result.ok) {
    const { items, nextCursor } = result.value;
    shown = { items: [...(next ? (shown?.items ?? []) : []), ...items], ...(nextCursor === undefined ? {} : { nextCursor }) };
    couldNotRead = false;
  } else if (shown === undefined) {
    // Said where the list would be; what was on show stays, as it was last read.
    couldNotRead = true;
  }
  renderMyRequests();
}

/**
 * After the customer's action on a request (a create, a withdrawal): the list shows at once what
 * the page now knows of it, then reads the API again.
 */
export function followAction(loaded: PageConfig): Promise<void> {
  renderMyRequests();
  return loadMyRequests(loaded);
}

/** The section's own buttons. */
export function wireMyRequests(): void {
  retry.addEventListener('click', () => {
    if (state.config !== undefined) void loadMyRequests(state.config);
  });
  more.addEventListener('click', () => {
    if (state.config === undefined) return;
    const before = list.children.length;
    void loadMyRequests(state.config, true).then(() => {
      (list.children[before]?.querySelector('h3') ?? more).focus();
    });
  });
}
