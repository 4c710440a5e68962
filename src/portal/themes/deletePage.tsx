import type { Theme } from '../../themes/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { ConfirmForm } from '../views/confirm.js';
import { PORTAL, panelPage } from '../views/layout.js';
import { M } from './messages.js';

// The confirmation before a theme is deleted.

export function renderThemeDelete(view: View, theme: Theme): string {
  const t = translator(M, view.lang);
  const base = `${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}`;
  return panelPage(
    { view, title: t('deleteTitle', { name: theme.name }), section: 'themes' },
    <>
      <p>{t('deleteText', { key: theme.themeKey })}</p>
      <ConfirmForm view={view} action={`${base}/delete`} question={t('deleteTitle', { name: theme.name })} button={t('deleteConfirm')} back={`${base}/edit`} />
    </>,
  );
}
