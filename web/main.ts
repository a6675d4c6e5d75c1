import { loadReasons, loadRequests, refreshRequests, refreshShown, submit, withdraw } from './api.ts';
import { parseConfig } from './config.ts';
import { dayInDays, inputDay } from './dates.ts';
import {
  accountInput,
  bikInput,
  byId,
  chosenContractId,
  contractsBox,
  CONTROLS,
  dateInput,
  form,
  moreButton,
  reasonSelect,
  recipientInput,
  requestsList,
  TYPED,
  withdrawDialog,
} from './elements.ts';
import { applyLanguage, checkAsTyped, checkOnLeaving, contractChosen, formForContract, setFormState, showLocalProblem } from './form.ts';
import { renderRequests } from './render.ts';
import { fieldErrors, state } from './state.ts';

/*
 * The personal account's termination form (web/index.html): texts.ts holds its words, config.ts
 * reads /config.json, render.ts and form.ts draw, checks.ts and fields.ts check what is typed,
 * api.ts calls the API; this wires them to the page's events. Served by
 * scripts/local/page-server.ts, which bundles it with esbuild.
 */

async function main(): Promise<void> {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-lang]')) {
    button.addEventListener('click', () => {
      const chosen = button.dataset['lang'];
      if (chosen !== 'en' && chosen !== 'ru') return;
      state.language = chosen;
      applyLanguage();
      if (state.config) {
        void loadReasons(state.config);
        void refreshShown(state.config);
        void refreshRequests(state.config);
      }
    });
  }
  byId('withdraw-cancel', HTMLButtonElement).addEventListener('click', () => withdrawDialog.close('cancel'));
  byId('withdraw-confirm', HTMLButtonElement).addEventListener('click', () => withdrawDialog.close('confirm'));
  setFormState('loading');
  applyLanguage();
  try {
    const answer = await fetch('/config.json', { cache: 'no-store' });
    state.config = parseConfig(await answer.json());
  } catch (error) {
    console.error(error);
    showLocalProblem('loadFailed');
    return;
  }
  const loaded = state.config;
  applyLanguage();
  await loadReasons(loaded);
  dateInput.value = inputDay(dayInDays(30));
  if (loaded.bankDetails) {
    bikInput.value = loaded.bankDetails.bik;
    accountInput.value = loaded.bankDetails.accountNumber;
    recipientInput.value = loaded.bankDetails.recipientName;
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit(loaded);
  });
  for (const field of TYPED) {
    const control = CONTROLS[field];
    control.addEventListener('input', () => checkAsTyped(field));
    control.addEventListener('change', () => checkOnLeaving(field, control.value));
  }
  // A reason that needs a comment makes the comment's check another.
  reasonSelect.addEventListener('change', () => {
    if (fieldErrors.has('comment')) checkAsTyped('comment');
  });
  contractsBox.addEventListener('change', () => {
    contractChosen();
    state.listed = undefined;
    renderRequests();
    void loadRequests(loaded, chosenContractId());
  });
  moreButton.addEventListener('click', () => void loadRequests(loaded, chosenContractId(), true));
  requestsList.addEventListener('click', (event) => {
    const button = event.target instanceof HTMLElement ? event.target.closest('button.withdraw') : null;
    if (!(button instanceof HTMLButtonElement)) return;
    const { requestId, requestNumber } = button.dataset;
    if (requestId !== undefined && requestNumber !== undefined) void withdraw(loaded, requestId, requestNumber);
  });
  await loadRequests(loaded, chosenContractId());
  formForContract();
  // The timed refresh skips a tick while one is still in flight, and while the page is hidden.
  let refreshing = false;
  setInterval(() => {
    if (refreshing || document.hidden) return;
    refreshing = true;
    void refreshRequests(loaded).finally(() => (refreshing = false));
  }, loaded.refreshSeconds * 1000);
}

void main();
