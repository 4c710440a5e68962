import { mailOf, mailPage, messageIdOf } from '../../mail/service.js';
import { pageHeaders } from '../../web/headers.js';
import type { PortalArea } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { renderMail, renderMailList } from './views.js';

// The merchant's e-mails (docs/mail.md): what was written for each payment, whether the mail server
// took it, and the message itself. Whoever reads payments reads these: a receipt tells no more.

type MailParams = { Params: { mailId: string } };

export const mailArea: PortalArea = {
  styles: `
.mail-text { white-space: pre-wrap; word-break: break-word; font-size: .9rem; margin: 0; }
td.mail-what { overflow-wrap: anywhere; min-width: 10rem; }
`,
  routes(portal, deps) {
    const route = portalRouter(portal, deps);
    route
      .get('/mail', { permission: 'payments.read', view: renderMailList })
      .handle(async ({ request, merchantId }: Ctx<{ Querystring: { before?: string; after?: string } }>) => ({
        data: await mailPage(deps.db, merchantId, request.query),
      }));

    route.get('/mail/:mailId', { permission: 'payments.read', view: renderMail }).handle(async ({ request, merchantId }: Ctx<MailParams>) => {
      const mail = await mailOf(deps.db, merchantId, request.params.mailId);
      return { data: { mail, messageId: messageIdOf(mail.id, deps.config.mailFrom) } };
    });

    // The HTML as it was sent, under a policy of its own: inline styles only, sandboxed (src/web/headers.ts).
    route.get('/mail/:mailId/html', { permission: 'payments.read' }).handle(async ({ request, reply, merchantId }: Ctx<MailParams>) => {
      const mail = await mailOf(deps.db, merchantId, request.params.mailId);
      pageHeaders(reply, 'mail');
      return { sent: reply.type('text/html; charset=utf-8').send(mail.html) };
    });
  },
};
