// What the portal's theme editor shows of the checkout: the pay page itself, rendered for a sample link
// in the theme and language the merchant is editing. The editor imports it from here, so the page's own
// files stay the checkout module's to rearrange.
export { pageTranslator } from './pages/i18n.js';
export { renderPayPreview } from './pages/payPage.js';
export { DEFAULT_PALETTE, THEMES } from './pages/styles.js';
export { PLAIN_CHECKOUT, type Checkoutable } from './shopper.js';
