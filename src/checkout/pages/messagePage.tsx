import type { Checkoutable } from '../shopper.js';
import type { MessageKey } from './i18n.js';
import { page, type PageContext } from './layout.js';

// A page with a title, one sentence and an optional link back.

/** A page with a title, one sentence and an optional link back. */
export function renderMessage(
  ctx: PageContext,
  c: Checkoutable | null,
  title: MessageKey,
  message: MessageKey,
  back?: { href: string; label: MessageKey },
): string {
  const body = (
    <>
      <h1>{ctx.t(title)}</h1>
      <p class="notice">{ctx.t(message)}</p>
      {back ? (
        <a class="button" href={back.href}>
          {ctx.t(back.label)}
        </a>
      ) : null}
    </>
  );
  return page(ctx, c, ctx.t(title), body);
}
