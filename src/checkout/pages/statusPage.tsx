import type { Checkoutable } from '../shopper.js';
import type { MessageKey } from './i18n.js';
import { heading, page, type PageContext } from './layout.js';

// The page of a link or session that cannot be paid.

const STATUS_MESSAGE: Record<string, { link: MessageKey; session: MessageKey }> = {
  Expired: { link: 'statusExpiredLink', session: 'statusExpiredSession' },
  Used: { link: 'statusUsed', session: 'statusNotPayable' },
  Disabled: { link: 'statusDisabled', session: 'statusNotPayable' },
  Completed: { link: 'statusCompletedLink', session: 'statusCompletedSession' },
};

/** The statuses in which a link shows its own inactiveMessage, when it has one, instead of the sentence above. */
const OWN_MESSAGE_STATUSES = new Set(['Disabled', 'Expired', 'Used']);

/** A link or session that cannot be paid: says why (in the merchant's words, when the link has them), shows no form. */
export function renderStatusPage(ctx: PageContext, c: Checkoutable): string {
  const key = STATUS_MESSAGE[c.status]?.[c.kind] ?? 'statusNotPayable';
  const own = c.kind === 'link' && c.inactiveMessage !== null && OWN_MESSAGE_STATUSES.has(c.status) ? c.inactiveMessage : null;
  const back = c.cancelUrl ?? (c.kind === 'session' ? c.returnUrl : null);
  const body = (
    <>
      <h1>{heading(ctx, c)}</h1>
      {own !== null ? (
        <p class="notice merchant-message" role="status" data-status={c.status} data-inactive-message="">
          {own}
        </p>
      ) : (
        <p class="notice" role="status" data-status={c.status}>
          {ctx.t(key)}
        </p>
      )}
      {back ? (
        <a class="button" href={back} rel="noreferrer">
          {ctx.t('returnToShop')}
        </a>
      ) : null}
    </>
  );
  return page(ctx, c, heading(ctx, c), body);
}
