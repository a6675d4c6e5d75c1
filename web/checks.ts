import { dayInDays, formatDay, inputDay } from './dates.ts';
import { accountInput, bikInput, chosenContract, chosenReason, commentInput, dateInput, recipientInput } from './elements.ts';
import { ACCOUNT_DIGITS, BIK_DIGITS } from '../lib/api-model/schemas.ts';
import { checkComment, checkDate, checkDigits, checkRecipientName, type FieldProblem, type Moment } from './fields.ts';
import { state, t, type Field } from './state.ts';
import { EXAMPLE_ACCOUNT, EXAMPLE_BIK } from './texts.ts';

/*
 * The page's own checks of each field (the rules are fields.ts's, which a unit test holds against
 * the API's validator), run on what is typed now, and each problem in the customer's words.
 */

export const commentRequired = () => state.reasonChoices.find((reason) => reason.reasonCode === chosenReason())?.commentRequired ?? false;

export function check(field: Field, moment: Moment): FieldProblem | undefined {
  switch (field) {
    case 'bik':
      return checkDigits(bikInput.value, BIK_DIGITS, moment);
    case 'account':
      return checkDigits(accountInput.value, ACCOUNT_DIGITS, moment);
    case 'recipient':
      return checkRecipientName(recipientInput.value, moment);
    case 'comment':
      return checkComment(commentInput.value, commentRequired(), moment);
    case 'date':
      return checkDate(dateInput.value, dayInDays(0), chosenContract()?.endDate, moment);
    case 'reason':
      // Not chosen for the customer: no reason is chosen until they choose one.
      return chosenReason() === '' && moment === 'complete' ? { code: 'required' } : undefined;
    case 'contract':
    case 'documents':
      return undefined;
  }
}

/** A problem the page found, in the customer's words, with an example. */
export function problemText(field: Field, problem: FieldProblem): string {
  const digits = field === 'bik' ? { digits: BIK_DIGITS, example: EXAMPLE_BIK } : { digits: ACCOUNT_DIGITS, example: EXAMPLE_ACCOUNT };
  const prefix = field === 'bik' ? 'bik' : 'account';
  const exampleDay = inputDay(dayInDays(30));
  switch (problem.code) {
    case 'required':
      if (field === 'bik' || field === 'account') return t(`${prefix}Required`, digits);
      if (field === 'date') return t('dateRequired', { example: exampleDay });
      if (field === 'reason') return t('reasonRequired');
      return t('recipientRequired');
    case 'digitsOnly':
      return t(`${prefix}DigitsOnly`, digits);
    case 'digitCount':
      return t(`${prefix}DigitCount`, { ...digits, entered: problem.entered });
    case 'noLetter':
      return t('recipientNoLetter');
    case 'tooLong':
      return t('tooLong', { max: problem.max, entered: problem.entered });
    case 'hiddenCharacters':
      return t('hiddenCharacters');
    case 'dateFormat':
      return t('dateFormat', { example: exampleDay });
    case 'dateImpossible':
      return t('dateImpossible', { example: exampleDay });
    case 'dateBeforeToday':
      return t('dateBeforeToday', { today: formatDay(problem.today) });
    case 'dateAfterEnd':
      return t('dateAfterEnd', { endDate: formatDay(problem.endDate) });
    case 'commentRequired':
      return t('commentRequired');
  }
}
