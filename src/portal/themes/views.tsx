import type { VNode } from 'preact';
import type { FieldError } from '../../errors.js';
import { formatMoney } from '../../html/format.js';
import type { Lang } from '../../web/lang.js';
import { THEMES, pageTranslator, renderPayPreview, type Checkoutable } from '../../checkout/preview.js';
import { BUTTON_SHAPES, CUSTOM_THEME_CLASS, LOGO_MAX_BYTES, themeAssets, type Theme } from '../../themes/service.js';
import { messages, translator } from '../i18n.js';
import type { FieldErrors, View } from '../view.js';
import { Csrf, CopyField, ErrorSummary, Field, FieldMessages, Notice, Time, TableWrap, fieldId } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';

// The themes pages: the list (with the built-in palettes), the form to make or change a theme with a
// preview of the payment page beside it, and the confirmation before a theme is deleted.

export const M = messages(
  {
    title: 'Themes',
    lead: 'Your own look for the payment pages. Give a theme’s key as themeKey when you create a payment link or a checkout session.',
    newTheme: 'New theme',
    editTitle: 'Edit the theme {name}',
    deleteTitle: 'Delete the theme {name}?',
    empty: 'No themes yet. The payment pages use the built-in palettes until you make one.',
    builtInTitle: 'Built-in palettes',
    builtInIntro: 'These six need no theme: give the name as themeKey.',
    name: 'Name',
    nameHint: 'Only you see it, here in the portal.',
    key: 'Key',
    keyLabel: 'The theme’s key (themeKey)',
    colours: 'Colours',
    swatch: 'Accent {accent}, background {background}',
    accentColor: 'Accent colour',
    accentHint: 'The pay button and links. The button’s text becomes white or dark, whichever reads better.',
    backgroundColor: 'Background colour',
    backgroundHint: 'Behind the payment form. The page’s text becomes dark or light, whichever reads better.',
    buttonShape: 'Button shape',
    shapeRounded: 'Rounded corners',
    shapeSquare: 'Square corners',
    shapePill: 'Round ends',
    logo: 'Logo',
    logoHint: 'A PNG or JPEG image of at most 256 KB, shown at the top of the payment page instead of your name.',
    logoCurrent: 'The current logo:',
    logoReplaceHint: 'Choose a file to replace it.',
    removeLogo: 'Remove the logo',
    hasLogo: 'Logo',
    updated: 'Changed',
    edit: 'Edit',
    preview: 'Preview',
    delete: 'Delete',
    create: 'Create theme',
    saveChanges: 'Save changes',
    previewCaption: 'Preview of the payment page',
    previewFull: 'Open the whole payment page in this theme',
    previewFullUnsaved: 'The preview follows the colours as you choose them; save to see the whole page.',
    previewNote: 'A preview of the theme {name} with sample data: nothing can be paid here.',
    previewBack: 'Back to the theme',
    sampleItem: 'Wool sweater',
    created: 'The theme is made. Give its key as themeKey to use it.',
    saved: 'Saved. Payment pages that use this theme show the change at once.',
    deleted: 'The theme is deleted.',
    deleteText: 'Payment links and checkout sessions that name {key} show the default look instead. This cannot be undone.',
    deleteConfirm: 'Delete theme',
    // errors (the English ones with figures come from the themes module itself)
    errContrastAccent: 'The text of the pay button would be hard to read on this colour (contrast below 4.5:1). Choose a darker or a lighter colour.',
    errContrastBackground: 'The text of the page would be hard to read on this colour (contrast below 4.5:1). Choose a darker or a lighter colour.',
    errLogoType: 'The logo must be a PNG or a JPEG image.',
    errLogoTooLarge: 'The logo is larger than 256 KB. Nothing was saved; choose a smaller file.',
  },
  {
    title: 'Útlit',
    lead: 'Ykkar eigið útlit á greiðslusíðunum. Gefðu lykil útlitsins sem themeKey þegar þú stofnar greiðsluhlekk eða greiðslusíðu.',
    newTheme: 'Nýtt útlit',
    editTitle: 'Breyta útlitinu {name}',
    deleteTitle: 'Eyða útlitinu {name}?',
    empty: 'Ekkert útlit enn. Greiðslusíðurnar nota innbyggðu litaspjöldin þar til þú býrð til útlit.',
    builtInTitle: 'Innbyggð litaspjöld',
    builtInIntro: 'Þessi sex þurfa ekkert útlit: gefðu heiti þeirra sem themeKey.',
    name: 'Heiti',
    nameHint: 'Aðeins þið sjáið það, hér á þjónustuvefnum.',
    key: 'Lykill',
    keyLabel: 'Lykill útlitsins (themeKey)',
    colours: 'Litir',
    swatch: 'Áherslulitur {accent}, bakgrunnur {background}',
    accentColor: 'Áherslulitur',
    accentHint: 'Greiðsluhnappurinn og hlekkir. Texti hnappsins verður hvítur eða dökkur, eftir því hvor les betur.',
    backgroundColor: 'Bakgrunnslitur',
    backgroundHint: 'Á bak við greiðsluformið. Texti síðunnar verður dökkur eða ljós, eftir því hvor les betur.',
    buttonShape: 'Lögun hnappa',
    shapeRounded: 'Rúnuð horn',
    shapeSquare: 'Hvöss horn',
    shapePill: 'Rúnaðir endar',
    logo: 'Merki',
    logoHint: 'PNG- eða JPEG-mynd, í mesta lagi 256 KB, sem birtist efst á greiðslusíðunni í stað nafnsins.',
    logoCurrent: 'Núverandi merki:',
    logoReplaceHint: 'Veldu skrá til að skipta því út.',
    removeLogo: 'Fjarlægja merkið',
    hasLogo: 'Merki',
    updated: 'Breytt',
    edit: 'Breyta',
    preview: 'Forskoða',
    delete: 'Eyða',
    create: 'Búa til útlit',
    saveChanges: 'Vista breytingar',
    previewCaption: 'Forskoðun greiðslusíðunnar',
    previewFull: 'Opna alla greiðslusíðuna í þessu útliti',
    previewFullUnsaved: 'Forskoðunin fylgir litunum um leið og þú velur þá; vistaðu til að sjá alla síðuna.',
    previewNote: 'Forskoðun útlitsins {name} með sýnigögnum: hér er ekkert greitt.',
    previewBack: 'Aftur í útlitið',
    sampleItem: 'Lopapeysa',
    created: 'Útlitið er tilbúið. Gefðu lykil þess sem themeKey til að nota það.',
    saved: 'Vistað. Greiðslusíður sem nota þetta útlit sýna breytinguna strax.',
    deleted: 'Útlitinu var eytt.',
    deleteText: 'Greiðsluhlekkir og greiðslusíður sem nefna {key} fá sjálfgefna útlitið í staðinn. Þetta er ekki hægt að afturkalla.',
    deleteConfirm: 'Eyða útliti',
    errContrastAccent: 'Texti greiðsluhnappsins yrði illlæsilegur á þessum lit (birtuskil undir 4,5:1). Veldu dekkri eða ljósari lit.',
    errContrastBackground: 'Texti síðunnar yrði illlæsilegur á þessum lit (birtuskil undir 4,5:1). Veldu dekkri eða ljósari lit.',
    errLogoType: 'Merkið verður að vera PNG- eða JPEG-mynd.',
    errLogoTooLarge: 'Merkið er stærra en 256 KB. Engu var breytt; veldu minni skrá.',
  },
);

type Key = keyof typeof M.en;

const SHAPE_LABEL = { rounded: 'shapeRounded', square: 'shapeSquare', pill: 'shapePill' } as const satisfies Record<(typeof BUTTON_SHAPES)[number], Key>;

/**
 * The themes module's errors in the reader's language: its own sentence for English readers (it
 * carries the figures), this page's translation for Icelandic ones. The other codes are the API's
 * common ones, which the portal translates itself.
 */
export function localized(view: Pick<View, 'lang'>, errors: readonly FieldError[]): FieldError[] {
  if (view.lang === 'en') return [...errors];
  const t = translator(M, view.lang);
  return errors.map((e) => {
    const key: Key | undefined =
      e.code === 'CONTRAST'
        ? e.field === 'accentColor'
          ? 'errContrastAccent'
          : 'errContrastBackground'
        : e.code === 'LOGO_TYPE'
          ? 'errLogoType'
          : e.code === 'LOGO_TOO_LARGE'
            ? 'errLogoTooLarge'
            : undefined;
    return key ? { ...e, message: t(key) } : e;
  });
}

/** The over-size logo, said beside its field (the upload stopped before the form was read). */
export function logoTooLarge(view: Pick<View, 'lang'>): FieldError {
  return { field: 'logo', code: 'LOGO_TOO_LARGE', message: translator(M, view.lang)('errLogoTooLarge') };
}

function Swatches({ view, theme }: { view: View; theme: Theme }): VNode {
  const t = translator(M, view.lang);
  // Drawn with SVG fills: the portal's CSP allows no inline style.
  return (
    <span class="swatches">
      <svg width="44" height="22" viewBox="0 0 44 22" role="img" aria-label={t('swatch', { accent: theme.accentColor, background: theme.backgroundColor })}>
        <rect x="0.5" y="0.5" width="21" height="21" rx="4" fill={theme.accentColor} stroke="#8a93a3" />
        <rect x="22.5" y="0.5" width="21" height="21" rx="4" fill={theme.backgroundColor} stroke="#8a93a3" />
      </svg>
      <code aria-hidden="true">
        {theme.accentColor} / {theme.backgroundColor}
      </code>
    </span>
  );
}

export function renderThemeList(view: View, data: { themes: readonly Theme[]; notice: 'deleted' | null }): string {
  const t = translator(M, view.lang);
  return portalPage({
    view,
    title: t('title'),
    section: 'themes',
    lead: t('lead'),
    actions: (
      <a class="button primary" href={`${PORTAL}/themes/new`}>
        {t('newTheme')}
      </a>
    ),
    children: (
      <>
        {data.notice ? <Notice>{t(data.notice)}</Notice> : null}
        {data.themes.length === 0 ? (
          <p class="panel empty">{t('empty')}</p>
        ) : (
          <TableWrap label={t('title')}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('name')}</th>
                  <th scope="col">{t('key')}</th>
                  <th scope="col">{t('colours')}</th>
                  <th scope="col">{t('buttonShape')}</th>
                  <th scope="col">{t('hasLogo')}</th>
                  <th scope="col">{t('updated')}</th>
                  <th scope="col">{view.t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {data.themes.map((theme) => {
                  const base = `${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}`;
                  return (
                    <tr>
                      <td class="wrap">
                        <a href={`${base}/edit`}>{theme.name}</a>
                      </td>
                      <td>
                        <code>{theme.themeKey}</code>
                      </td>
                      <td>
                        <Swatches view={view} theme={theme} />
                      </td>
                      <td>{t(SHAPE_LABEL[theme.buttonShape])}</td>
                      <td>{theme.logoType !== null ? view.t('yes') : view.t('no')}</td>
                      <td>
                        <Time view={view} at={theme.updatedAt} />
                      </td>
                      <td>
                        <span class="row-actions">
                          <a href={`${base}/edit`} aria-label={`${t('edit')}: ${theme.name}`}>
                            {t('edit')}
                          </a>
                          <a href={`${base}/preview`} aria-label={`${t('preview')}: ${theme.name}`}>
                            {t('preview')}
                          </a>
                          <a href={`${base}/delete`} class="danger-link" aria-label={`${t('delete')}: ${theme.name}`}>
                            {t('delete')}
                          </a>
                        </span>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
        <section class="panel">
          <h2>{t('builtInTitle')}</h2>
          <p>{t('builtInIntro')}</p>
          <ul class="builtins">
            {THEMES.map((name) => (
              <li>
                <code>{name}</code>
              </li>
            ))}
          </ul>
        </section>
      </>
    ),
  });
}

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
function PayPreview({ view, theme, sample }: { view: View; theme: Theme | null; sample: { item: string; amount: number; currency: string } }): VNode {
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
    children: (
      <>
        {data.notice ? <Notice>{t(data.notice)}</Notice> : null}
        {theme ? <CopyField view={view} label={t('keyLabel')} value={theme.themeKey} id="theme-key" /> : null}
        <div class="theme-editor">
          <form method="post" action={action} enctype="multipart/form-data" class="panel" data-theme-form="">
            <Csrf view={view} />
            <ErrorSummary view={view} errors={errors} shownFields={FORM_FIELDS} />
            <Field
              view={view}
              name="name"
              label={t('name')}
              value={values.name}
              errors={errors}
              hint={t('nameHint')}
              required
              maxLength={60}
              autocomplete="off"
            />
            <div class="two">
              <Field view={view} name="accentColor" label={t('accentColor')} type="color" value={values.accentColor} errors={errors} hint={t('accentHint')} />
              <Field
                view={view}
                name="backgroundColor"
                label={t('backgroundColor')}
                type="color"
                value={values.backgroundColor}
                errors={errors}
                hint={t('backgroundHint')}
              />
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

function LogoField({ view, logo, values, errors }: { view: View; logo: string | null; values: ThemeFormValues; errors: FieldErrors }): VNode {
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

/** The payment page's data for a preview: a sample line in the reader's language, the merchant's name. */
function sample(theme: Theme, merchantName: string, lang: Lang): Checkoutable {
  const item = translator(M, lang)('sampleItem');
  return {
    kind: 'link',
    reference: 'preview',
    merchantId: '',
    merchantName,
    terminalIdentifier: '',
    description: item,
    amount: SAMPLE.amount,
    currency: SAMPLE.currency,
    culture: lang,
    themeKey: theme.themeKey,
    items: [{ name: item, quantity: 1, unitPrice: SAMPLE.amount, amountWithoutDiscount: null, amount: SAMPLE.amount }],
    shopperInfos: [
      { field: 'FullName', requirementType: 'Required', prefilledValue: null },
      { field: 'EmailAddress', requirementType: 'Optional', prefilledValue: null },
    ],
    returnUrl: null,
    cancelUrl: null,
    tokenize: false,
    recurringProcessingModel: null,
    shopperEmail: null,
    status: 'Active',
    payable: true,
    merchantReference: 'preview',
    checkoutReference: null,
    preAuth: false,
    manualCapture: false,
    captureHoursDelay: null,
    merchantShopperReference: null,
  };
}

/** The whole payment page in a saved theme, its own components with sample data, in the language asked for (the page's switch works). */
export function renderThemePreview(lang: Lang, theme: Theme, merchantName: string): string {
  const t = translator(M, lang);
  const path = `${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}`;
  const ctx = { lang, t: pageTranslator(lang), basePath: `${path}/preview`, theme: themeAssets(theme) };
  const note = (
    <>
      {t('previewNote', { name: theme.name })} <a href={`${path}/edit`}>{t('previewBack')}</a>
    </>
  );
  return renderPayPreview(ctx, sample(theme, merchantName, lang), note);
}

export function renderThemeDelete(view: View, theme: Theme): string {
  const t = translator(M, view.lang);
  const base = `${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}`;
  return portalPage({
    view,
    title: t('deleteTitle', { name: theme.name }),
    section: 'themes',
    children: (
      <section class="panel">
        <p>{t('deleteText', { key: theme.themeKey })}</p>
        <form method="post" action={`${base}/delete`} class="form-actions" data-confirm={t('deleteTitle', { name: theme.name })}>
          <Csrf view={view} />
          <button type="submit" class="danger">
            {t('deleteConfirm')}
          </button>
          <a href={`${base}/edit`}>{view.t('cancel')}</a>
        </form>
      </section>
    ),
  });
}
