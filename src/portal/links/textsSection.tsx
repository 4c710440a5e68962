import type { Html } from '../../html/jsx-runtime.js';
import type { View, FieldErrors } from '../view.js';
import { formScope } from '../views/components.js';
import type { LinkEntry } from './form.js';
import type { T } from './labels.js';

// The part of the link forms with what the merchant says to the shopper in their own words: the
// message after a payment, the message once the link cannot be paid, and the terms the shopper
// accepts before paying (docs/portal.md, Messages and terms). Empty is none: the pages then say
// what they always have.

export const SHOPPER_TEXT_FIELDS = ['completionMessage', 'inactiveMessage', 'termsUrl'] as const;

export function ShopperTextsSection(p: { view: View; t: T; entry: LinkEntry; errors: FieldErrors }): Html {
  const { Field } = formScope(p.view, p.errors, p.entry);
  const { t } = p;
  return (
    <fieldset>
      <legend>{t('sectionTexts')}</legend>
      {(['completionMessage', 'inactiveMessage'] as const).map((name) => (
        <Field name={name} label={t(name)} hint={t(`${name}Hint`)} maxLength={500} multiline />
      ))}
      <Field name="termsUrl" type="url" label={t('termsUrl')} hint={t('termsUrlHint')} maxLength={2048} />
    </fieldset>
  );
}
