import type { WebhookView } from '../../webhooks/service.js';
import type { View } from '../view.js';
import { Time } from '../views/components.js';
import { DataTable, Td } from '../views/table.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { EventList, SECTION, StatusBadge, at, hrefOf, nameOf, words } from './common.js';

// The webhook list (§Webhooks).

export function renderWebhookList(
  view: View,
  s: { webhooks: readonly WebhookView[]; older: string | null; newer: string | null; notice: 'deleted' | null },
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
    notice: s.notice === 'deleted' ? t('deleted') : null,
    children: (
      <>
        <DataTable
          view={view}
          label={t('listLabel')}
          columns={[t('url'), t('events'), view.t('status'), view.t('created')]}
          rows={s.webhooks}
          empty={t('noWebhooks')}
          paging={{ base: `${PORTAL}/webhooks`, older: s.older, newer: s.newer }}
          row={(w) => (
            <tr>
              <Td class="wrap">
                <a href={hrefOf(w.webhookId)} class="mono">
                  {nameOf(t, w)}
                </a>
                {w.description ? <div class="muted small">{w.description}</div> : null}
              </Td>
              <Td>
                <EventList t={t} types={w.eventTypes} />
              </Td>
              <Td>
                <StatusBadge t={t} webhook={w} />
              </Td>
              <Td>
                <Time view={view} at={at(w.createdAt)} />
              </Td>
            </tr>
          )}
        />
      </>
    ),
  });
}
