import type { Children, Html } from '../../html/jsx-runtime.js';
import type { DeliveryView } from '../../webhooks/deliveries/service.js';
import type { WebhookView } from '../../webhooks/service.js';
import { translator, type Translate } from '../i18n.js';
import type { View } from '../view.js';
import { Badge } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { M } from './messages.js';

// What the webhook pages share (§Webhooks, §Deliveries): the words, the paths of a webhook and a
// delivery, the badges, the frame of a page about one webhook, and the area's style rules.

type Key = keyof typeof M.en;
export type T = Translate<Key>;

export function words(view: View): T {
  return translator(M, view.lang);
}

export const SECTION = 'webhooks';
export const hrefOf = (webhookId: string): string => `${PORTAL}/webhooks/${encodeURIComponent(webhookId)}`;
export const deliveryHref = (d: { webhookId: string; deliveryId: string }): string => `${hrefOf(d.webhookId)}/deliveries/${encodeURIComponent(d.deliveryId)}`;
export const at = (iso: string | null): Date | null => (iso === null ? null : new Date(iso));

export function StatusBadge({ t, webhook }: { t: T; webhook: WebhookView }): Html {
  return webhook.enabled ? <Badge tone="ok">{t('enabled')}</Badge> : <Badge tone="neutral">{t('disabled')}</Badge>;
}

export function EventList({ t, types }: { t: T; types: readonly string[] }): Html {
  return types.length === 0 ? <span>{t('allEvents')}</span> : <span>{types.join(', ')}</span>;
}

export function Back({ href, label }: { href: string; label: string }): Html {
  return (
    <p class="back">
      <a href={href}>← {label}</a>
    </p>
  );
}

/** How a webhook is named on its pages: its URL, or what made it for a listener. */
export const nameOf = (t: T, w: WebhookView): string => (w.kind === 'listener' ? t('listener') : w.url);

/** A page about one webhook (edit, rotate, delete, ...), with the way back to the webhook. */
export function aboutWebhook(view: View, t: T, w: WebhookView, p: { title: string; lead?: string; back?: string; children: Children }): string {
  return portalPage({
    view,
    title: p.title,
    section: SECTION,
    lead: p.lead,
    children: (
      <>
        <Back href={hrefOf(w.webhookId)} label={p.back ?? nameOf(t, w)} />
        {p.children}
      </>
    ),
  });
}

const STATE_TONE = { Pending: 'info', Delivered: 'ok', Failed: 'bad' } as const;
const STATE_KEY = { Pending: 'statePending', Delivered: 'stateDelivered', Failed: 'stateFailed' } as const satisfies Record<DeliveryView['state'], Key>;

export function StateBadge({ t, state }: { t: T; state: DeliveryView['state'] }): Html {
  return <Badge tone={STATE_TONE[state]}>{t(STATE_KEY[state])}</Badge>;
}

/** The area's own style rules: bodies in <pre>, attempts, narrow number inputs. */
export const WEBHOOK_STYLES = `
pre.body { margin: 0; padding: .6rem .75rem; background: var(--bg); border: 1px solid var(--border); border-radius: 6px; max-height: 24rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; font: .85rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.attempt h3 { display: flex; gap: .5rem; align-items: center; margin-top: 0; }
.attempt h4 { font-size: .9rem; margin: .75rem 0 .35rem; }
.field.narrow input { max-width: 10rem; }
.back { margin: -.5rem 0 1rem; font-size: .9rem; }
`;
