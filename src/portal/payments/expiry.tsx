import type { Html } from '../../html/jsx-runtime.js';
import { formatDateTime } from '../../html/format.js';
import type { Headroom } from '../../payments/modifications/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { Notice } from '../views/components.js';
import { M } from './messages.js';
import type { Moment } from './timeline.js';

// An authorisation that has expired (docs/api.md, Authorisations expire), on a payment's page: the capture
// form's place says so, and a capture or adjustment posted from a page loaded before the expiry comes
// back with the reason at the top; the timeline has the moment it expired.

/** Stands where the capture form would be, once the authorisation has expired. */
export function ExpiredCapture({ view, expiry }: { view: View; expiry: NonNullable<Headroom['expiry']> }): Html {
  const t = translator(M, view.lang);
  return (
    <section class="panel" aria-labelledby="capture-title">
      <h3 id="capture-title">{t('capture')}</h3>
      <Notice kind="warn">{t('captureExpired', { at: formatDateTime(expiry.at, view.lang) })}</Notice>
    </section>
  );
}

/** The answer to a capture or an adjustment refused for the expiry. */
export function RefusedExpired({ view, expiry }: { view: View; expiry: Headroom['expiry'] }): Html | null {
  if (!expiry) return null;
  return <Notice kind="error">{translator(M, view.lang)('refusedExpired', { at: formatDateTime(expiry.at, view.lang) })}</Notice>;
}

/** The payment's timeline with the moment its authorisation expired, in its place among the others. */
export function withExpiry(moments: Moment[], expiry: Headroom['expiry'], text: string): Moment[] {
  if (!expiry?.expired) return moments;
  const at = expiry.at.getTime();
  const i = moments.findIndex((m) => m.at.getTime() > at);
  const moment: Moment = { at: expiry.at, text, tone: 'neutral' };
  return i === -1 ? [...moments, moment] : [...moments.slice(0, i), moment, ...moments.slice(i)];
}
