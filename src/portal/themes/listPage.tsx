import type { Html } from '../../html/jsx-runtime.js';
import { THEMES } from '../../checkout/preview.js';
import type { Theme } from '../../themes/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { Time } from '../views/components.js';
import { PORTAL } from '../views/layout.js';
import { listPage } from '../views/listPage.js';
import { Td } from '../views/table.js';
import { M, SHAPE_LABEL } from './messages.js';

// The themes list, with the built-in palettes.

function Swatches({ view, theme }: { view: View; theme: Theme }): Html {
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
  return listPage(view, t, {
    section: 'themes',
    actions: (
      <a class="button primary" href={`${PORTAL}/themes/new`}>
        {t('newTheme')}
      </a>
    ),
    notice: data.notice ? t(data.notice) : null,
    table: {
      columns: [t('name'), t('key'), t('colours'), t('buttonShape'), t('hasLogo'), t('updated'), view.t('actions')],
      rows: data.themes,
      empty: t('empty'),
      row: (theme) => {
        const base = `${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}`;
        return (
          <tr>
            <Td class="wrap">
              <a href={`${base}/edit`}>{theme.name}</a>
            </Td>
            <Td>
              <code>{theme.themeKey}</code>
            </Td>
            <Td>
              <Swatches view={view} theme={theme} />
            </Td>
            <Td>{t(SHAPE_LABEL[theme.buttonShape])}</Td>
            <Td>{theme.logoType !== null ? view.t('yes') : view.t('no')}</Td>
            <Td>
              <Time view={view} at={theme.updatedAt} />
            </Td>
            <Td>
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
            </Td>
          </tr>
        );
      },
    },
    after: (
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
    ),
  });
}
