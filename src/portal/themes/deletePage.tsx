import type { Theme } from '../../themes/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { Csrf } from '../views/components.js';
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
