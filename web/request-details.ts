import type { TerminationRequestDetails } from '../client/index.ts';
import { client } from './api.ts';
import type { PageConfig } from './config.ts';
import { formatDay, formatMomentWithTime } from './dates.ts';
import { paragraph, span } from './render.ts';
import { state, t } from './state.ts';
import { STATUS_LABELS } from './texts.ts';

/*
 * What the customer sent with a request and how it went, under each request the page lists
 * (GET .../{requestId}/details, docs/decisions/0022-what-a-customer-sees-of-a-request.md): a
 * disclosure read from the API when first opened, and again once the request's status moved on.
 * The lists are drawn anew on every refresh: which disclosures are open, and what each showed,
 * are kept here by request, so a refresh neither closes one nor reads it again for nothing.
 */

const open = new Set<string>();
const read = new Map<string, TerminationRequestDetails | 'failed'>();

/** The one disclosure of a request, open as the customer left it. */
export function detailsDisclosure(contractId: string, request: { requestId: string; status: string }): HTMLDetailsElement {
  const details = document.createElement('details');
  details.className = 'request-details';
  const summary = document.createElement('summary');
  summary.textContent = t('detailsSummary');
  const body = document.createElement('div');
  body.className = 'details-body';
  details.append(summary, body);
  const known = read.get(request.requestId);
  const current = known !== undefined && known !== 'failed' && known.request.status === request.status ? known : undefined;
  if (current !== undefined) body.replaceChildren(...detailsContent(current));
  details.open = open.has(request.requestId);
  details.addEventListener('toggle', () => {
    if (!details.open) {
      open.delete(request.requestId);
      return;
    }
    open.add(request.requestId);
    if (current === undefined && state.config !== undefined) void load(state.config, contractId, request.requestId, body);
  });
  if (details.open && current === undefined && state.config !== undefined) void load(state.config, contractId, request.requestId, body);
  return details;
}

async function load(loaded: PageConfig, contractId: string, requestId: string, body: HTMLElement): Promise<void> {
  body.replaceChildren(paragraph('details-loading', t('detailsLoading')));
  body.setAttribute('aria-busy', 'true');
  const result = await client(loaded).getTerminationRequestDetails(contractId, requestId);
  read.set(requestId, result.ok ? result.value : 'failed');
  body.removeAttribute('aria-busy');
  body.replaceChildren(...(result.ok ? detailsContent(result.value) : [paragraph('error', t('detailsFailed'))]));
}

/** A term and what the customer gave for it. */
function entry(list: HTMLDListElement, term: string, value: string): void {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  list.append(dt, dd);
}

function heading(text: string): HTMLHeadingElement {
  const h = document.createElement('h4');
  h.textContent = text;
  return h;
}

/** What was submitted (the account by its last 4 digits only: all the API gives), then each status with its time and the bank's words. */
function detailsContent({ submitted, timeline }: TerminationRequestDetails): HTMLElement[] {
  const sent = document.createElement('dl');
  sent.className = 'submitted';
  const reason = state.reasonChoices.find((choice) => choice.reasonCode === submitted.reasonCode)?.label ?? submitted.reasonCode;
  entry(sent, t('reason'), reason);
  entry(sent, t('date'), formatDay(submitted.desiredTerminationDate));
  entry(sent, t('bik'), submitted.bankDetails.bik);
  entry(sent, t('account'), t('accountEnding', { last4: submitted.bankDetails.accountNumberLast4 }));
  entry(sent, t('recipient'), submitted.bankDetails.recipientName);
  if (submitted.comment !== undefined) entry(sent, t('commentSent'), submitted.comment);
  if (submitted.documentIds !== undefined) {
    const names = submitted.documentIds.map(
      (id) => state.config?.documents?.find((document) => document.documentId === id)?.fileName ?? t('documentUnnamed'),
    );
    entry(sent, t('documentsSent'), names.join(', '));
  }
  const steps = document.createElement('ol');
  steps.className = 'timeline';
  steps.append(
    ...timeline.map((step) => {
      const item = document.createElement('li');
      item.dataset['status'] = step.status;
      const time = document.createElement('time');
      time.dateTime = step.at;
      time.textContent = formatMomentWithTime(step.at);
      item.append(span('timeline-status', STATUS_LABELS[step.status][state.language]), ' ', time);
      if (step.reason !== undefined) {
        const quote = document.createElement('q');
        quote.className = 'bank-words';
        // Plain text, never HTML, in the language the bank wrote it in.
        quote.textContent = step.reason;
        quote.lang = /\p{Script=Cyrillic}/u.test(step.reason) ? 'ru' : 'en';
        item.append(' ', quote);
      }
      return item;
    }),
  );
  return [heading(t('submittedTitle')), sent, heading(t('timelineTitle')), steps];
}
