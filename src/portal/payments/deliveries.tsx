import type { Html } from '../../html/jsx-runtime.js';
import type { DeliveryView } from '../../webhooks/deliveries/service.js';
import type { Translate } from '../i18n.js';
import type { View } from '../view.js';
import { Badge, TableWrap, Time } from '../views/components.js';
import { PORTAL } from '../views/layout.js';
import type { Key } from './messages.js';

// The webhooks a payment caused, on its page: each delivery with its state, linked to the delivery's
// own page for those who may read webhooks.

type T = Translate<Key>;

const DELIVERY_KEY = { Pending: 'deliveryPending', Delivered: 'deliveryDelivered', Failed: 'deliveryFailed' } as const satisfies Record<
  DeliveryView['state'],
  Key
>;
const DELIVERY_TONE = { Pending: 'info', Delivered: 'ok', Failed: 'bad' } as const;

export function Deliveries({
  view,
  t,
  deliveries,
  names,
}: {
  view: View;
  t: T;
  deliveries: readonly DeliveryView[];
  names: ReadonlyMap<string, string>;
}): Html {
  const linked = view.can('webhooks.read');
  return (
    <TableWrap label={t('webhooks')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('date')}</th>
            <th scope="col">{t('eventType')}</th>
            <th scope="col">{t('webhook')}</th>
            <th scope="col">{view.t('status')}</th>
            <th scope="col" class="num">
              {t('attempts')}
            </th>
            <th scope="col">{t('delivery')}</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr>
              <td>
                <Time view={view} at={new Date(d.createdAt)} />
              </td>
              <td>{d.eventType}</td>
              <td>
                <WebhookName view={view} t={t} webhookId={d.webhookId} name={names.get(d.webhookId)} />
              </td>
              <td>
                <Badge tone={DELIVERY_TONE[d.state]}>{t(DELIVERY_KEY[d.state])}</Badge>
              </td>
              <td class="num">{d.attemptCount}</td>
              <td>
                {linked ? (
                  <a class="mono" href={`${PORTAL}/webhooks/${encodeURIComponent(d.webhookId)}/deliveries/${encodeURIComponent(d.deliveryId)}`}>
                    {d.deliveryId}
                  </a>
                ) : (
                  <span class="mono">{d.deliveryId}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The webhook a delivery went to, by its name, linked for those who may read webhooks; a deleted one by its id. */
function WebhookName({ view, t, webhookId, name }: { view: View; t: T; webhookId: string; name: string | undefined }): Html {
  if (name === undefined) return <span class="muted">{t('webhookDeleted')}</span>;
  if (!view.can('webhooks.read')) return <span>{name}</span>;
  return <a href={`${PORTAL}/webhooks/${encodeURIComponent(webhookId)}`}>{name}</a>;
}
