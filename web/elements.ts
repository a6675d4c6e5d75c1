import type { ContractChoice } from './config.ts';
import { state, type ChosenField, type Field } from './state.ts';

/* The page's elements (web/index.html), found once, each of the type the page uses it as. */

export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`The page has no #${id}`);
  return element;
}

export const form = byId('termination-form', HTMLFormElement);
export const contractsBox = byId('contracts', HTMLElement);
export const contractNote = byId('contract-note', HTMLElement);
export const reasonsBox = byId('reasons', HTMLElement);
export const dateInput = byId('date', HTMLInputElement);
export const bikInput = byId('bik', HTMLInputElement);
export const accountInput = byId('account', HTMLInputElement);
export const recipientInput = byId('recipient', HTMLInputElement);
export const commentInput = byId('comment', HTMLTextAreaElement);
export const submitButton = byId('submit', HTMLButtonElement);
export const generalError = byId('general-error', HTMLElement);
export const resultSection = byId('result', HTMLElement);
export const requestsList = byId('requests-list', HTMLUListElement);
export const requestsEmpty = byId('requests-empty', HTMLElement);
export const moreButton = byId('requests-more', HTMLButtonElement);
export const withdrawDialog = byId('withdraw-dialog', HTMLDialogElement);
export const formFields = byId('form-fields', HTMLElement);
export const commentLabel = byId('comment-label', HTMLLabelElement);
export const bankOffered = byId('bank-offered', HTMLElement);
export const notice = byId('notice', HTMLElement);
export const resultWithdraw = byId('result-withdraw', HTMLButtonElement);
export const requestsFailed = byId('requests-failed', HTMLElement);
export const requestsStale = byId('requests-stale', HTMLElement);
export const requestsEnd = byId('requests-end', HTMLElement);
export const requestsRetry = byId('requests-retry', HTMLButtonElement);
export const loadProblem = byId('load-problem', HTMLElement);
export const loadRetry = byId('load-retry', HTMLButtonElement);
export const customers = byId('customers', HTMLElement);
export const documentsField = byId('documents-field', HTMLFieldSetElement);
export const documentsBox = byId('documents', HTMLElement);

export const FIELDS: readonly Field[] = ['contract', 'reason', 'date', 'bik', 'account', 'recipient', 'comment', 'documents'];
export const CONTROLS: Record<Exclude<Field, ChosenField>, HTMLInputElement | HTMLTextAreaElement> = {
  date: dateInput,
  bik: bikInput,
  account: accountInput,
  recipient: recipientInput,
  comment: commentInput,
};

/** The fields the customer types in, checked as they type. */
export const TYPED = ['date', 'bik', 'account', 'recipient', 'comment'] as const;

/** Which field each path in an error's details names. */
export const FIELD_OF = new Map<string, Field>([
  ['contractId', 'contract'],
  ['reasonCode', 'reason'],
  ['desiredTerminationDate', 'date'],
  ['bankDetails.bik', 'bik'],
  ['bankDetails.accountNumber', 'account'],
  ['bankDetails.recipientName', 'recipient'],
  ['comment', 'comment'],
]);

/** Whether a field is typed in one control of its own (CONTROLS), not chosen among boxes. */
export const isTyped = (field: Field): field is Exclude<Field, ChosenField> =>
  field !== 'contract' && field !== 'reason' && field !== 'documents';

/** Whether the page itself checks a field (the customer must complete it): every field but the contract and the documents. */
export const isChecked = (field: Field): boolean => field !== 'contract' && field !== 'documents';

/** The field a control of the form belongs to: a typed field's control, or one of the boxes of a field chosen among them. */
export function fieldOf(control: EventTarget | null): Field | undefined {
  return FIELDS.find((field) => (isTyped(field) ? CONTROLS[field] === control : boxesOf(field).some((box) => box === control)));
}

/** Which of the form's documents a details path names: `documentIds[2]` is the third offered box's, if sent. */
export const documentIndexOf = (path: string): number | undefined => {
  const match = /^documentIds\[(\d+)\]$/.exec(path);
  return match === null ? undefined : Number(match[1]);
};

/** The documents' boxes, in the order offered. */
export function documentBoxes(): HTMLInputElement[] {
  return [...documentsBox.querySelectorAll('input[name="document"]')].filter((input) => input instanceof HTMLInputElement);
}

/** The ids of the documents chosen, in the order offered: what the request names. */
export const chosenDocumentIds = (): string[] => documentBoxes().flatMap((box) => (box.checked ? [box.value] : []));

/** The reasons' radios, in the order the API lists them. */
export function reasonRadios(): HTMLInputElement[] {
  return [...reasonsBox.querySelectorAll('input[name="reason"]')].filter((input) => input instanceof HTMLInputElement);
}

/** The reason chosen, or '' while none is (the reason is the customer's to choose: none is chosen for them). */
export const chosenReason = (): string => reasonRadios().find((radio) => radio.checked)?.value ?? '';

export function contractRadios(): HTMLInputElement[] {
  return [...contractsBox.querySelectorAll('input[name="contract"]')].filter((input) => input instanceof HTMLInputElement);
}

export function chosenContractId(): string {
  return contractRadios().find((radio) => radio.checked)?.value ?? '';
}

export function chosenContract(): ContractChoice | undefined {
  const contractId = chosenContractId();
  return state.config?.contracts.find((contract) => contract.contractId === contractId);
}

/** The boxes of a field chosen among several: the contracts' radios, the reasons', the documents' boxes. */
export function boxesOf(field: ChosenField): HTMLInputElement[] {
  switch (field) {
    case 'contract':
      return contractRadios();
    case 'reason':
      return reasonRadios();
    case 'documents':
      return documentBoxes();
  }
}

export function controlOf(field: Field): HTMLElement | undefined {
  if (field === 'contract') return contractRadios().find((radio) => radio.checked) ?? contractRadios()[0];
  if (field === 'reason') return reasonRadios().find((radio) => radio.checked) ?? reasonRadios()[0];
  if (field === 'documents') return documentBoxes()[0];
  return CONTROLS[field];
}
