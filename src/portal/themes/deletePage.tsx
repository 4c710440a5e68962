import type { Theme } from '../../themes/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { ConfirmForm } from '../views/confirm.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { M } from './messages.js';

// The confirmation before a theme is deleted.

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
        <ConfirmForm
          view={view}
          action={`${base}/delete`}
          question={t('deleteTitle', { name: theme.name })}
          button={t('deleteConfirm')}
          back={`${base}/edit`}
        />
      </section>
    ),
  });
}
