import { loadReasons, loadRequests, refreshRequests, refreshShown, submit, withdraw } from './api.ts';
import { check, commentRequired } from './checks.ts';
import { loadConfig } from './config.ts';
import {
  byId,
  chosenContractId,
  contractsBox,
  CONTROLS,
  controlOf,
  FIELDS,
  form,
  fieldOf,
  isChecked,
  loadRetry,
  moreButton,
  reasonsBox,
  requestsEnd,
  requestsList,
  requestsRetry,
  resultWithdraw,
  TYPED,
  withdrawDialog,
} from './elements.ts';
import { applyLanguage, checkAsTyped, checkOnLeaving, contractChosen, setFormState, syncForm } from './form.ts';
import { offerBankDetails } from './new-request.ts';
import { followAction, loadMyRequests, wireMyRequests } from './my-requests.ts';
import { renderCommentLabel } from './render.ts';
import { fieldErrors, state, type Field } from './state.ts';

/*
 * The personal account's termination form (web/index.html): texts.ts holds its words, config.ts
 * reads /config.json, state.ts what the page knows, render.ts, requests-view.ts and form.ts draw
 * it, checks.ts and fields.ts check what is typed, api.ts calls the API; this wires them to the
 * page's events. Served by scripts/local/page-server.ts, which bundles it with esbuild.
 */

/** Loads what the page needs, from where it stopped last time: its config, the reasons, the chosen contract's list. */
async function start(): Promise<void> {
  loadRetry.disabled = true;
  try {
    if (state.config === undefined) {
      try {
        state.config = await loadConfig();
      } catch (error) {
        console.error(error);
        state.loadProblem = 'loadFailed';
        applyLanguage();
        return;
      }
      state.loadProblem = undefined;
      offerBankDetails();
      applyLanguage();
    }
    if (!(await loadReasons(state.config))) return;
    await Promise.all([loadRequests(state.config, chosenContractId()), loadMyRequests(state.config)]);
    syncForm();
  } finally {
    loadRetry.disabled = false;
  }
}

/** The field to go to on Enter: the next one after `from` that is not complete yet, if any. */
function nextIncomplete(from: Field): Field | undefined {
  const after = FIELDS.slice(FIELDS.indexOf(from) + 1);
  return [...after, ...FIELDS].find((field) => isChecked(field) && check(field, 'complete') !== undefined);
}

function whenLoaded(act: (config: NonNullable<typeof state.config>) => unknown): void {
  if (state.config !== undefined) void act(state.config);
}

function wire(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-lang]')) {
    button.addEventListener('click', () => {
      const chosen = button.dataset['lang'];
      if (chosen !== 'en' && chosen !== 'ru') return;
      state.language = chosen;
      applyLanguage();
      // "All my requests" after the contract's own reads: it draws the requests the page knows in the new language.
      whenLoaded((config) =>
        Promise.all([loadReasons(config), Promise.all([refreshShown(config), refreshRequests(config)]).then(() => loadMyRequests(config))]),
      );
    });
  }
  byId('withdraw-cancel', HTMLButtonElement).addEventListener('click', () => withdrawDialog.close('cancel'));
  byId('withdraw-confirm', HTMLButtonElement).addEventListener('click', () => withdrawDialog.close('confirm'));
  loadRetry.addEventListener('click', () => void start());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // "All my requests" follows: the request just made shows there at once (my-requests.ts).
    whenLoaded((config) => submit(config).then(() => followAction(config)));
  });
  // Enter in a field of a form not yet complete goes on to the next field to fill, instead of submitting half of it.
  form.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || !(event.target instanceof HTMLInputElement)) return;
    const from = fieldOf(event.target) ?? 'contract';
    // What Enter leaves is checked at once, as leaving it would (an impossible date, a reason not chosen, says so now).
    if (isChecked(from)) checkOnLeaving(from);
    if (fieldErrors.has(from)) {
      event.preventDefault();
      return;
    }
    const next = nextIncomplete(from);
    if (next === undefined) return;
    event.preventDefault();
    controlOf(next)?.focus();
  });
  for (const field of TYPED) {
    const control = CONTROLS[field];
    control.addEventListener('input', () => checkAsTyped(field));
    control.addEventListener('change', () => checkOnLeaving(field));
  }
  // A reason that needs a comment makes the comment's label and check another.
  reasonsBox.addEventListener('change', () => {
    renderCommentLabel(commentRequired());
    if (fieldErrors.has('reason')) checkAsTyped('reason');
    if (fieldErrors.has('comment')) checkAsTyped('comment');
  });
  contractsBox.addEventListener('change', () => {
    contractChosen();
    whenLoaded((config) => loadRequests(config, chosenContractId()));
  });
  moreButton.addEventListener('click', () =>
    whenLoaded(async (config) => {
      const before = requestsList.children.length;
      await loadRequests(config, chosenContractId(), true);
      // The button goes when the list is whole: the focus goes on to the first request it brought, or to the line that says there is none.
      if (moreButton.hidden) (requestsList.children[before]?.querySelector('h3') ?? requestsEnd).focus();
    }),
  );
  requestsRetry.addEventListener('click', () => whenLoaded((config) => loadRequests(config, chosenContractId())));
  requestsList.addEventListener('click', (event) => {
    const button = event.target instanceof HTMLElement ? event.target.closest('button.withdraw') : null;
    if (!(button instanceof HTMLButtonElement)) return;
    const { requestId, requestNumber } = button.dataset;
    if (requestId !== undefined && requestNumber !== undefined)
      whenLoaded((config) => withdraw(config, requestId, requestNumber, 'list').then(() => followAction(config)));
  });
  resultWithdraw.addEventListener('click', () => {
    const { requestId, requestNumber } = resultWithdraw.dataset;
    if (requestId !== undefined && requestNumber !== undefined)
      whenLoaded((config) => withdraw(config, requestId, requestNumber, 'panel').then(() => followAction(config)));
  });
}

async function main(): Promise<void> {
  wire();
  wireMyRequests();
  setFormState('loading');
  applyLanguage();
  await start();
  // The timed refresh skips a tick while one is still in flight, and while the page is hidden.
  let refreshing = false;
  const every = (state.config?.refreshSeconds ?? 10) * 1000;
  setInterval(() => {
    if (refreshing || document.hidden || state.config === undefined || state.reasonChoices.length === 0) return;
    refreshing = true;
    void Promise.all([refreshRequests(state.config), loadMyRequests(state.config)]).finally(() => (refreshing = false));
  }, every);
}

void main();
