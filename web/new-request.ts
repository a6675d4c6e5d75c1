import { commentRequired } from './checks.ts';
import type { ContractChoice } from './config.ts';
import {
  accountInput,
  bankOffered,
  bikInput,
  chosenContract,
  commentInput,
  contractNote,
  dateInput,
  documentBoxes,
  reasonRadios,
  recipientInput,
} from './elements.ts';
import { isAvailable, renderCommentLabel, withNumber } from './render.ts';
import { latestRequestOf, state, t, type Words } from './state.ts';

/* Whether a new request can be made on the chosen contract now, the note that says why not, and the form made empty for one. */

/**
 * When a new request is possible, in the bank's business time zone (the API's texts give it in
 * the same zone) and the page's language, the zone named: 27 December 2026 at 15:03 Moscow
 * Standard Time. Rounded up to the minute, so the time said is never before the one the bank gave.
 */
function businessTime(iso: string): string {
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  time.setSeconds(time.getSeconds() > 0 || time.getMilliseconds() > 0 ? 60 : 0, 0);
  return time.toLocaleString(state.language === 'ru' ? 'ru-RU' : 'en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: state.config?.businessTimeZone,
    timeZoneName: 'long',
  });
}

/**
 * Why no new request can be made on the contract now, if so: it is not active (terminated at the
 * customer's request, or otherwise), the bank is terminating it (its newest request is completed
 * while the contracts service still has it active), or the API said when the next one is possible.
 */
export function noNewRequest(contract: ContractChoice): Words | undefined {
  const latest = latestRequestOf(contract.contractId);
  const completed = latest?.status === 'COMPLETED' ? { number: latest.requestNumber } : undefined;
  if (!isAvailable(contract)) return completed ? { key: 'terminatedNote', values: completed } : { key: 'contractNote' };
  if (completed) return { key: 'completingNote', values: completed };
  const next = state.nextRequestAllowedAt.get(contract.contractId);
  if (next !== undefined && Date.parse(next) > Date.now()) return { key: 'requestLimit', values: { when: businessTime(next) } };
  return undefined;
}

export function renderContractNote(): void {
  const contract = chosenContract();
  const why = contract === undefined ? undefined : noNewRequest(contract);
  const number = why?.values?.['number'];
  if (why === undefined) contractNote.replaceChildren();
  // A request number named in the note stays on one line.
  else contractNote.replaceChildren(...(number === undefined ? [t(why.key, why.values)] : withNumber(why.key, number)));
}

/** The customer's own account, offered as where to pay the balance, and the page says so. */
export function offerBankDetails(): void {
  const offered = state.config?.bankDetails;
  if (!offered) return;
  bikInput.value = offered.bik;
  accountInput.value = offered.accountNumber;
  recipientInput.value = offered.recipientName;
  bankOffered.hidden = false;
}

/** The form empty for a new request, after the last one ended: the bank details the customer's own again. */
export function resetForm(): void {
  for (const radio of reasonRadios()) radio.checked = false;
  dateInput.value = '';
  commentInput.value = '';
  for (const box of documentBoxes()) box.checked = false;
  offerBankDetails();
  renderCommentLabel(commentRequired());
}
