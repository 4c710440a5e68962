import type { Html } from '../../html/jsx-runtime.js';
import type { AnswerProblem, CustomField } from '../../paymentLinks/shopper.js';
import { messages, translator } from '../../web/lang.js';
import type { PageForm } from './form.js';
import type { PageContext } from './layout.js';

// A link's custom fields on its payment page (docs/api.md, Custom fields): one input per field,
// labelled in the page's language, with the problem of a refused answer beside it. The answers are
// checked by the link's rules (src/paymentLinks/customFields.ts) before paying and again by the
// payment on the locked link; the words are kept here, beside the only part that uses them.

const WORDS = messages(
  {
    legend: 'Additional information',
    choose: 'Choose…',
    required: 'Please fill in this field.',
    requiredChoice: 'Please choose one of the options.',
    tooLong: 'Use at most {max} characters.',
    notNumber: 'Enter a whole number, e.g. 12.',
    notOption: 'Choose one of the options.',
    format: 'This value is not valid.',
  },
  {
    legend: 'Viðbótarupplýsingar',
    choose: 'Veldu…',
    required: 'Vinsamlegast fylltu út þennan reit.',
    requiredChoice: 'Vinsamlegast veldu einn af valkostunum.',
    tooLong: 'Notaðu mest {max} stafi.',
    notNumber: 'Sláðu inn heila tölu, t.d. 12.',
    notOption: 'Veldu einn af valkostunum.',
    format: 'Þetta gildi er ekki gilt.',
  },
);

/** The name of a field's input in the page's form (its id too). */
export const customInputName = (key: string): string => `custom-${key}`;

/** What the form sent for each custom field, by key, to check and to show again. */
export function customValuesOf(fields: readonly CustomField[] | null, form: PageForm): Record<string, string> {
  const values: Record<string, string> = {};
  for (const f of fields ?? []) {
    const v = form.get(customInputName(f.key));
    if (v !== undefined) values[f.key] = v;
  }
  return values;
}

/** The values to show again, under the names of their inputs. */
export function customFormValues(values: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [customInputName(k), v]));
}

export function CustomFieldsSection(p: {
  ctx: PageContext;
  fields: readonly CustomField[] | null;
  values: Readonly<Record<string, string>>;
  problems: Readonly<Record<string, AnswerProblem>> | undefined;
}): Html | null {
  const { ctx, fields } = p;
  if (fields === null || fields.length === 0) return null;
  const w = translator(WORDS, ctx.lang);
  return (
    <fieldset class="custom-fields">
      <legend>{w('legend')}</legend>
      {fields.map((f) => {
        const id = customInputName(f.key);
        const problem = p.problems?.[f.key];
        const label = ctx.lang === 'en' && f.labelEn !== null ? f.labelEn : f.label;
        const value = p.values[id] ?? '';
        const message =
          problem === undefined
            ? null
            : problem === 'required' && f.type === 'Dropdown'
              ? w('requiredChoice')
              : problem === 'tooLong'
                ? w('tooLong', { max: f.maxLength ?? 255 })
                : w(problem);
        const common = {
          id,
          name: id,
          ...(f.required ? { required: true, 'aria-required': 'true' as const } : {}),
          ...(message !== null ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` } : {}),
        };
        return (
          <div class="field" data-custom-field={f.key}>
            <label for={id}>
              {label}
              <span class="tag">({ctx.t(f.required ? 'required' : 'optional')})</span>
            </label>
            {f.type === 'Dropdown' ? (
              <select {...common}>
                <option value="">{w('choose')}</option>
                {(f.options ?? []).map((o) => (
                  <option value={o} selected={o === value}>
                    {o}
                  </option>
                ))}
              </select>
            ) : f.type === 'Number' ? (
              <input type="text" {...common} inputMode="numeric" autocomplete="off" maxLength={16} value={value} />
            ) : (
              <input type="text" {...common} autocomplete="off" maxLength={f.maxLength ?? 255} value={value} />
            )}
            {message !== null ? (
              <p class="error" id={`${id}-error`}>
                {message}
              </p>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
