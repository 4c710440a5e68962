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

/** A link or session that cannot be paid: says why, shows no form. */
export function renderStatusPage(ctx: PageContext, c: Checkoutable): string {
  const key = STATUS_MESSAGE[c.status]?.[c.kind] ?? 'statusNotPayable';
  const back = c.cancelUrl ?? (c.kind === 'session' ? c.returnUrl : null);
  const body = (
    <>
      <h1>{heading(ctx, c)}</h1>
      <p class="notice" role="status" data-status={c.status}>
        {ctx.t(key)}
      </p>
      {back ? (
        <a class="button" href={back} rel="noreferrer">
          {ctx.t('returnToShop')}
        </a>
      ) : null}
    </>
  );
  return page(ctx, c, heading(ctx, c), body);
}
