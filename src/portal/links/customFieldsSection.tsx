import type { Html } from '../../html/jsx-runtime.js';
import type { PaymentLinkView } from '../../paymentLinks/service.js';
import { messages, translator, type Lang } from '../i18n.js';
import type { FieldErrors, View } from '../view.js';
import { Checkbox, Facts, formScope } from '../views/components.js';
import { CUSTOM_FIELD_INPUTS, CUSTOM_FIELD_PARTS, customInput, type CustomFieldEntry } from './customFieldsForm.js';

// The link's custom fields in the portal (docs/portal.md, Custom fields): the forms' section of three
// fixed rows, and the link page's list of what the payment page asks. Their words are kept here,
// beside the only parts that use them.

const WORDS = messages(
  {
    legend: 'Custom fields',
    lead: 'Up to three questions on the payment page, answered with the payment. Leave a row empty for no field.',
    row: 'Field {n}',
    empty: 'empty: open to add a question',
    untitled: 'no label yet',
    key: 'Key',
    keyHint: 'Names the answer in the API and the export: a letter, then letters, digits, _ or -. E.g. size.',
    type: 'Type',
    typeNone: '–',
    Text: 'Text',
    Number: 'Whole number',
    Dropdown: 'Dropdown',
    label: 'Label (Icelandic)',
    labelHint: 'What the page asks, up to 50 characters. Shown on the English page too when there is no English label.',
    labelEn: 'Label (English)',
    labelEnHint: 'Optional.',
    required: 'The shopper must answer',
    maxLength: 'Longest answer',
    maxLengthHint: 'Text only: 1–255 characters. Empty: 255.',
    options: 'Options',
    optionsHint: 'Dropdown only: one per line, up to 10, each up to 100 characters.',
    shown: 'Custom fields',
    none: 'The payment page asks no questions of its own.',
    asRequired: 'required',
    asOptional: 'optional',
    atMost: 'at most {n} characters',
  },
  {
    legend: 'Viðbótarspurningar',
    lead: 'Allt að þrjár spurningar á greiðslusíðunni, svarað með greiðslunni. Skildu línu eftir auða fyrir enga spurningu.',
    row: 'Spurning {n}',
    empty: 'auð: opnaðu til að bæta við spurningu',
    untitled: 'ekkert heiti enn',
    key: 'Lykill',
    keyHint: 'Nafn svarsins í vefþjónustunni og útflutningi: bókstafur, svo bókstafir, tölustafir, _ eða -. T.d. staerd.',
    type: 'Tegund',
    typeNone: '–',
    Text: 'Texti',
    Number: 'Heil tala',
    Dropdown: 'Fellilisti',
    label: 'Heiti (íslenska)',
    labelHint: 'Það sem síðan spyr um, allt að 50 stafir. Birtist líka á ensku síðunni ef ekkert enskt heiti er gefið.',
    labelEn: 'Heiti (enska)',
    labelEnHint: 'Valfrjálst.',
    required: 'Kaupandinn verður að svara',
    maxLength: 'Lengsta svar',
    maxLengthHint: 'Aðeins texti: 1–255 stafir. Autt: 255.',
    options: 'Valkostir',
    optionsHint: 'Aðeins fellilisti: einn í línu, allt að 10, hver allt að 100 stafir.',
    shown: 'Viðbótarspurningar',
    none: 'Greiðslusíðan spyr engra spurninga umfram þær venjulegu.',
    asRequired: 'nauðsynlegt',
    asOptional: 'valfrjálst',
    atMost: 'mest {n} stafir',
  },
);

const TYPES = ['Text', 'Number', 'Dropdown'] as const;

/** The inputs whose errors the section shows beside them. */
export const CUSTOM_FIELD_SHOWN = CUSTOM_FIELD_INPUTS;

export function CustomFieldsSection({ view, rows, errors }: { view: View; rows: readonly CustomFieldEntry[]; errors: FieldErrors }): Html {
  const w = translator(WORDS, view.lang);
  const { Field, Select } = formScope(view, errors);
  const types = [{ value: '', label: w('typeNone') }, ...TYPES.map((value) => ({ value, label: w(value) }))];
  return (
    <fieldset class="custom-fields">
      <legend>{w('legend')}</legend>
      <p class="muted small">{w('lead')}</p>
      {rows.map((r, i) => {
        // A row opens when it holds a question or an error; an empty one stays a line to open (no script needed).
        const used = CUSTOM_FIELD_PARTS.some((part) => (part === 'required' ? r.required : r[part].trim() !== ''));
        const open = used || errors.within(`customFields[${i}]`).length > 0;
        const title = w('row', { n: i + 1 });
        return (
          <details class="custom-field" data-custom-row={String(i)} open={open}>
            <summary>{used ? `${title}: ${r.label.trim() || r.key.trim() || w('untitled')}` : `${title} (${w('empty')})`}</summary>
            <fieldset>
              <legend class="visually-hidden">{title}</legend>
              <div class="two">
                <Field name={customInput(i, 'key')} label={w('key')} value={r.key} hint={w('keyHint')} maxLength={30} autocomplete="off" />
                <Select name={customInput(i, 'type')} label={w('type')} options={types} value={r.type} />
                <Field name={customInput(i, 'label')} label={w('label')} value={r.label} hint={w('labelHint')} maxLength={50} />
                <Field name={customInput(i, 'labelEn')} label={w('labelEn')} value={r.labelEn} hint={w('labelEnHint')} maxLength={50} />
                <Field
                  name={customInput(i, 'maxLength')}
                  label={w('maxLength')}
                  value={r.maxLength}
                  hint={w('maxLengthHint')}
                  inputmode="numeric"
                  maxLength={3}
                />
                <Field name={customInput(i, 'options')} label={w('options')} value={r.options} hint={w('optionsHint')} multiline />
              </div>
              <Checkbox name={customInput(i, 'required')} value="yes" label={w('required')} checked={r.required} />
            </fieldset>
          </details>
        );
      })}
    </fieldset>
  );
}

type LinkField = NonNullable<PaymentLinkView['customFields']>[number];

/** A field's label in the reader's language. */
export function customFieldLabel(f: Pick<LinkField, 'label' | 'labelEn'>, lang: Lang): string {
  return lang === 'en' && f.labelEn !== undefined ? f.labelEn : f.label;
}

/** The link page's list of the fields: label, then type, whether required, and its limit or options. */
export function CustomFieldsFacts({ view, link }: { view: View; link: PaymentLinkView }): Html {
  const w = translator(WORDS, view.lang);
  const fields = link.customFields ?? [];
  return (
    <section class="panel" aria-labelledby="custom-fields-title">
      <h2 id="custom-fields-title">{w('shown')}</h2>
      {fields.length === 0 ? (
        <p class="muted">{w('none')}</p>
      ) : (
        <Facts
          rows={fields.map((f) => {
            const type = TYPES.find((x) => x === f.type) ?? 'Text';
            const parts = [w(type), w(f.required ? 'asRequired' : 'asOptional')];
            if (f.maxLength !== undefined) parts.push(w('atMost', { n: f.maxLength }));
            if (f.options !== undefined) parts.push(f.options.join(' · '));
            return [
              customFieldLabel(f, view.lang),
              <>
                {parts.join(', ')} <span class="mono muted small">({f.key})</span>
              </>,
            ] as const;
          })}
        />
      )}
    </section>
  );
}
