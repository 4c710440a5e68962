import { messages, translator } from '../i18n.js';
import type { View } from '../view.js';
import { portalPage } from '../views/layout.js';

const M = messages(
  { welcome: 'Welcome to the portal of {merchant}.' },
  { welcome: 'Velkomin(n) á þjónustuvef {merchant}.' },
);

export function renderOverview(view: View): string {
  const t = translator(M, view.lang);
  return portalPage({ view, title: view.t('navOverview'), section: 'overview', children: <p>{t('welcome', { merchant: view.merchant.name })}</p> });
}
