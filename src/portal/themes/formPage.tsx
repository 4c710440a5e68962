import type { Html } from '../../html/jsx-runtime.js';
import { formatMoney } from '../../html/format.js';
import { pageTranslator } from '../../checkout/preview.js';
import { BUTTON_SHAPES, CUSTOM_THEME_CLASS, LOGO_MAX_BYTES, themeAssets, type Theme } from '../../themes/service.js';
import { translator } from '../i18n.js';
import type { FieldErrors, View } from '../view.js';
import { Csrf, CopyField, ErrorSummary, FieldMessages, fieldId, formScope } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { M, SHAPE_LABEL } from './messages.js';

// The form to make or change a theme, with a preview of the payment page beside it.

/** What the form shows: the values as sent (or stored), and whether the logo is to go. */
export interface ThemeFormValues {
  name: string;
  accentColor: string;
  backgroundColor: string;
  buttonShape: string;
  removeLogo: boolean;
}

export const NEW_THEME: ThemeFormValues = { name: '', accentColor: '#1f5eff', backgroundColor: '#f4f5f7', buttonShape: 'rounded', removeLogo: false };

export function valuesOf(theme: Theme): ThemeFormValues {
  return { name: theme.name, accentColor: theme.accentColor, backgroundColor: theme.backgroundColor, buttonShape: theme.buttonShape, removeLogo: false };
}

const FORM_FIELDS = ['name', 'accentColor', 'backgroundColor', 'buttonShape', 'logo'];

/**
 * The payment page in miniature, coloured by the theme: its saved stylesheet (linked here; the page
 * allows this origin's styles only), and with the portal's script the colours and logo being chosen.
 * The real page, with every part, is the preview page.
 */
function PayPreview({ view, theme, sample }: { view: View; theme: Theme | null; sample: { item: string; amount: number; currency: string } }): Html {
  const t = translator(M, view.lang);
  const pt = pageTranslator(view.lang);
  const amount = formatMoney(sample.amount, sample.currency, view.lang);
  const assets = theme ? themeAssets(theme) : null;
  return (
    <figure class="pay-preview-figure">
      <figcaption id="theme-preview-caption">{t('previewCaption')}</figcaption>
      {assets ? <link rel="stylesheet" href={assets.stylesheet} /> : null}
      <div class={assets ? `pay-preview ${CUSTOM_THEME_CLASS}` : 'pay-preview'} id="theme-preview" data-palette={`${PORTAL}/themes/palette`} aria-hidden="true">
        <div class="pv-main">
          <div class="pv-head">
            <p class="pv-merchant">
              <img class="pv-logo" src={assets?.logo ?? undefined} data-saved={assets?.logo ?? ''} alt="" hidden={!assets?.logo} />
              <span class="pv-name" hidden={Boolean(assets?.logo)}>
                {view.merchant.name}
              </span>
            </p>
            <span class="pv-lang">{pt('switchLanguage')}</span>
          </div>
          <p class="pv-title">{sample.item}</p>
          <div class="pv-line">
            <span>{sample.item}</span>
            <span class="num">{amount}</span>
          </div>
          <div class="pv-line pv-total">
            <span>{pt('total')}</span>
            <span class="num">{amount}</span>
          </div>
          <p class="pv-label">{pt('cardNumber')}</p>
          <div class="pv-input" />
          <p class="pv-button">{pt('pay', { amount })}</p>
          <p class="pv-cancel">{pt('cancel')}</p>
        </div>
      </div>
      <p class="small">{theme ? <a href={`${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}/preview`}>{t('previewFull')}</a> : t('previewFullUnsaved')}</p>
    </figure>
  );
}

export const SAMPLE = { amount: 48900, currency: 'ISK' } as const;

export function renderThemeForm(
  view: View,
  data: { theme: Theme | null; values: ThemeFormValues; errors: FieldErrors; notice: 'created' | 'saved' | null },
): string {
  const t = translator(M, view.lang);
  const { theme, values, errors } = data;
  const action = theme ? `${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}/edit` : `${PORTAL}/themes`;
  const assets = theme ? themeAssets(theme) : null;
  const { Field } = formScope(view, errors, values);
  const shapeId = fieldId('buttonShape');
  const shapeErrors = errors.of('buttonShape');
  return portalPage({
    view,
    title: theme ? t('editTitle', { name: theme.name }) : t('newTheme'),
    section: 'themes',
    actions: theme ? (
      <a class="button danger" href={`${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}/delete`}>
        {t('delete')}
      </a>
    ) : undefined,
    notice: data.notice ? t(data.notice) : null,
    children: (
      <>
        {theme ? <CopyField view={view} label={t('keyLabel')} value={theme.themeKey} id="theme-key" /> : null}
        <div class="theme-editor">
          <form method="post" action={action} enctype="multipart/form-data" class="panel" data-theme-form="">
            <Csrf view={view} />
            <ErrorSummary view={view} errors={errors} shownFields={FORM_FIELDS} />
            <Field name="name" label={t('name')} hint={t('nameHint')} required maxLength={60} autocomplete="off" />
            <div class="two">
              <Field name="accentColor" label={t('accentColor')} type="color" hint={t('accentHint')} />
              <Field name="backgroundColor" label={t('backgroundColor')} type="color" hint={t('backgroundHint')} />
            </div>
            <fieldset aria-describedby={shapeErrors.length > 0 ? `${shapeId}-error` : undefined}>
              <legend>{t('buttonShape')}</legend>
              <div class="shapes">
                {BUTTON_SHAPES.map((shape) => (
                  <div class="check">
                    <input type="radio" id={fieldId(`buttonShape-${shape}`)} name="buttonShape" value={shape} checked={values.buttonShape === shape} />
                    <label for={fieldId(`buttonShape-${shape}`)}>{t(SHAPE_LABEL[shape])}</label>
                  </div>
                ))}
              </div>
              <FieldMessages view={view} id={shapeId} errors={shapeErrors} />
            </fieldset>
            <LogoField view={view} logo={assets?.logo ?? null} values={values} errors={errors} />
            <div class="form-actions">
              <button type="submit" class="primary">
                {theme ? t('saveChanges') : t('create')}
              </button>
              <a href={`${PORTAL}/themes`}>{view.t('cancel')}</a>
            </div>
          </form>
          <PayPreview view={view} theme={theme} sample={{ item: t('sampleItem'), ...SAMPLE }} />
        </div>
      </>
    ),
  });
}

function LogoField({ view, logo, values, errors }: { view: View; logo: string | null; values: ThemeFormValues; errors: FieldErrors }): Html {
  const t = translator(M, view.lang);
  const id = fieldId('logo');
  const own = errors.of('logo');
  const described = [`${id}-hint`, ...(own.length > 0 ? [`${id}-error`] : [])].join(' ');
  return (
    <div class="field logo-field">
      <label for={id}>{t('logo')}</label>
      {logo ? (
        <div class="logo-current">
          <span class="hint">{t('logoCurrent')}</span>
          <img src={logo} alt={view.merchant.name} />
        </div>
      ) : null}
      <input
        type="file"
        id={id}
        name="logo"
        accept="image/png,image/jpeg"
        aria-invalid={own.length > 0 ? 'true' : undefined}
        aria-describedby={described}
        data-max-bytes={String(LOGO_MAX_BYTES)}
        data-too-large={t('errLogoTooLarge')}
        data-wrong-type={t('errLogoType')}
      />
      <span class="hint" id={`${id}-hint`}>
        {t('logoHint')}
        {logo ? ` ${t('logoReplaceHint')}` : ''}
      </span>
      <FieldMessages view={view} id={id} errors={own} />
      {logo ? (
        <div class="check">
          <input type="checkbox" id={fieldId('removeLogo')} name="removeLogo" value="on" checked={values.removeLogo} />
          <label for={fieldId('removeLogo')}>{t('removeLogo')}</label>
        </div>
      ) : null}
    </div>
  );
}
