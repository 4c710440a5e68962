import type { FieldError } from '../../errors.js';
import type { BUTTON_SHAPES } from '../../themes/service.js';
import { messages, translator } from '../i18n.js';
import type { View } from '../view.js';

// The themes pages' words in both languages, the label of each button shape, and the themes module's
// errors in the reader's language.

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

export type Key = keyof typeof M.en;

export const SHAPE_LABEL = { rounded: 'shapeRounded', square: 'shapeSquare', pill: 'shapePill' } as const satisfies Record<(typeof BUTTON_SHAPES)[number], Key>;

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
