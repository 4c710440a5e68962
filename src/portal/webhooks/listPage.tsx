import type { WebhookView } from '../../webhooks/service.js';
import type { View } from '../view.js';
import { Notice, Pager, TableWrap, Time } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { EventList, SECTION, StatusBadge, at, hrefOf, nameOf, words } from './common.js';

// The webhook list (§Webhooks).

export function renderWebhookList(
  view: View,
  s: { webhooks: readonly WebhookView[]; totalCount: number; page: number; pageSize: number; notice: 'deleted' | null },
): string {
  const t = words(view);
  return portalPage({
    view,
    title: view.t('navWebhooks'),
    section: SECTION,
    lead: t('lead'),
    actions: view.can('webhooks.write') ? (
      <a class="button primary" href={`${PORTAL}/webhooks/new`}>
        {t('newWebhook')}
      </a>
    ) : null,
    children: (
      <>
        {s.notice === 'deleted' ? <Notice>{t('deleted')}</Notice> : null}
        {s.webhooks.length === 0 ? (
          <p class="panel empty">{t('noWebhooks')}</p>
        ) : (
          <TableWrap label={t('listLabel')}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('url')}</th>
                  <th scope="col">{t('events')}</th>
                  <th scope="col">{view.t('status')}</th>
                  <th scope="col">{view.t('created')}</th>
                </tr>
              </thead>
              <tbody>
                {s.webhooks.map((w) => (
                  <tr>
                    <td class="wrap">
                      <a href={hrefOf(w.webhookId)} class="mono">
                        {nameOf(t, w)}
                      </a>
                      {w.description ? <div class="muted small">{w.description}</div> : null}
                    </td>
                    <td>
                      <EventList t={t} types={w.eventTypes} />
                    </td>
                    <td>
                      <StatusBadge t={t} webhook={w} />
                    </td>
                    <td>
                      <Time view={view} at={at(w.createdAt)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        <Pager view={view} base={`${PORTAL}/webhooks`} query={{}} page={s.page} pageSize={s.pageSize} total={s.totalCount} />
      </>
    ),
  });
}
