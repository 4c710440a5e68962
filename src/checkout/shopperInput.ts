import { isEmailAddress } from '../emailAddress.js';
import { checkCustomAnswers, type AnswerProblem, type CustomFieldAnswer } from '../paymentLinks/shopper.js';
import type { ShopperInfo } from '../paymentLinks/rules.js';
import type { QuantityProblem } from '../paymentLinks/quantities.js';
import { problemsOf } from './quantities.js';
import type { Answer, Checkoutable } from './shopper.js';

// What the shopper gives besides the card, checked once, by pay() on the link or session as it is
// when it is locked for the payment (src/checkout/shopper.ts): the answers to its shopper infos, its
// terms, the quantities chosen, its custom fields. Every problem is found at once; the pay page shows
// them beside their fields, and checks nothing of its own.

/** What the shopper sent with the payment form, as typed; the card goes apart. */
export interface ShopperInput {
  /** The answer to each shopper-info field, by its name (Ssn, EmailAddress, …), as typed. */
  answers: Readonly<Record<string, string>>;
  /** The box that accepts a link's terms was ticked. */
  acceptedTerms: boolean;
  /** The answers to a link's custom fields, by key, as the form sent them. */
  customValues: Readonly<Record<string, string>>;
  /** The quantities chosen, one per item of a link that offers a choice (NaN: one that could not be read); null: none. */
  quantities: number[] | null;
}

/** Why an answer to a shopper-info field is refused. */
export type InfoProblem = 'required' | 'tooLong' | 'format';

export interface ShopperProblems {
  /** By shopper-info field name. */
  answers: Readonly<Record<string, InfoProblem>>;
  /** The link has terms and they were not accepted. */
  terms: boolean;
  quantities: readonly QuantityProblem[];
  /** By custom field key. */
  custom: Readonly<Record<string, AnswerProblem>>;
}

export interface CheckedShopperInput {
  /** The answers the payment records: Prefilled ones as the merchant set them, the rest as typed. */
  answers: Answer[];
  /** A link's custom fields answered, as recorded; null when it has none. */
  customFieldAnswers: CustomFieldAnswer[] | null;
  /** The quantities, when the link offers a choice. */
  quantities: number[] | null;
  /** Null when nothing is wrong. */
  problems: ShopperProblems | null;
}

const FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  // Icelandic kennitala: ten digits, optionally DDMMYY-NNNN.
  Ssn: (v) => /^\d{6}-?\d{4}$/.test(v),
  EmailAddress: isEmailAddress,
  Telephone: (v) => /^\+?[0-9 ()-]{5,20}$/.test(v),
};

const MAX_ANSWER_LENGTH = 500;

/**
 * The shopper-info fields of a link (§Creating a link): Hidden is neither shown nor taken, Optional
 * may be empty, Required may not, Prefilled always takes the merchant's value whatever the form says
 * (it is shown read-only). An answer is trimmed, at most 500 characters, and in its field's format.
 */
export function checkShopperInfos(
  infos: readonly ShopperInfo[],
  typed: Readonly<Record<string, string>>,
): { answers: Answer[]; problems: Record<string, InfoProblem> } {
  const answers: Answer[] = [];
  const problems: Record<string, InfoProblem> = {};
  for (const info of infos) {
    if (info.requirementType === 'Hidden') continue;
    if (info.requirementType === 'Prefilled') {
      if (info.prefilledValue !== null) answers.push({ field: info.field, value: info.prefilledValue });
      continue;
    }
    const value = (typed[info.field] ?? '').trim();
    if (value === '') {
      if (info.requirementType === 'Required') problems[info.field] = 'required';
      continue;
    }
    const format = FORMATS[info.field];
    if (value.length > MAX_ANSWER_LENGTH) problems[info.field] = 'tooLong';
    else if (format && !format(value)) problems[info.field] = 'format';
    else answers.push({ field: info.field, value });
  }
  return { answers, problems };
}

/** Every rule of the shopper's side of a payment at once, against the link or session as it is. */
export function checkShopperInput(c: Checkoutable, input: ShopperInput): CheckedShopperInput {
  const infos = checkShopperInfos(c.kind === 'link' ? c.shopperInfos : [], input.answers);
  const quantities = c.choice !== null ? input.quantities : null;
  const quantityProblems = problemsOf(c, quantities);
  const custom = checkCustomAnswers(c.customFields, (key) => input.customValues[key]);
  const terms = c.termsUrl !== null && !input.acceptedTerms;
  const wrong = Object.keys(infos.problems).length > 0 || terms || quantityProblems.length > 0 || Object.keys(custom.problems).length > 0;
  return {
    answers: infos.answers,
    customFieldAnswers: c.customFields !== null ? custom.answers : null,
    quantities,
    problems: wrong ? { answers: infos.problems, terms, quantities: quantityProblems, custom: custom.problems } : null,
  };
}
