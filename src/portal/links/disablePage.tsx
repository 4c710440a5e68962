import type { PaymentLinkView } from '../../paymentLinks/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { NothingToDo } from '../views/components.js';
import { ConfirmForm } from '../views/confirm.js';
import { portalPage } from '../views/layout.js';
import { M } from './messages.js';
import { linkPath } from './labels.js';

// The confirmation before disabling a payment link.

export function renderDisable(view: View, link: PaymentLinkView): string {
  const t = translator(M, view.lang);
  const path = linkPath(link.paymentLinkReference);
  const already = link.status === 'Disabled';
  return portalPage({
    view,
    title: t('disableTitle'),
    section: 'links',
    children: already ? (
      <NothingToDo view={view} why={t('alreadyDisabled')} back={path} />
    ) : (
      <div class="panel">
        <p>{t('disableText', { description: link.description ? `“${link.description}”` : t('thisLink') })}</p>
        <p class="mono small break">{link.url}</p>
        <ConfirmForm view={view} action={`${path}/disable`} question={t('disableTitle')} button={t('disableConfirm')} back={path} />
      </div>
    ),
  });
}
