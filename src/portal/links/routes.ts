import QRCode from 'qrcode';
import { ApiError } from '../../errors.js';
import { listTerminals } from '../../accounts/service.js';
import { keysetOf } from '../../db/keyset.js';
import { LINK_STATUSES, LINK_TYPES, type LinkStatus, type LinkType } from '../../paymentLinks/schemas.js';
import {
  createPaymentLink,
  disablePaymentLink,
  getPaymentLink,
  listLinkSummaries,
  searchPaymentLinks,
  updatePaymentLink,
  type PaymentLinkView,
} from '../../paymentLinks/service.js';
import { paymentsOf } from '../../payments/service.js';
import { PAGE_SIZE, pageParam, type PortalArea, type PortalDeps } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { translator } from '../i18n.js';
import { FieldErrors, type View } from '../view.js';
import { PORTAL } from '../views/layout.js';
import { LINK_STYLES, enhanceItemRows } from './browser.js';
import { writeMoney } from '../../html/format.js';
import {
  NEW_ROWS,
  blankItem,
  createBody,
  createEntryOf,
  emptyEntry,
  entryOf,
  entryOfLink,
  rowsToShow,
  updateBody,
  UPDATE_NAMES,
  type CreateEntry,
  type LinkEntry,
} from './form.js';
import { M } from './messages.js';
import { renderDisable } from './disablePage.js';
import { renderLinkDetail, type DetailNotice } from './detailPage.js';
import { renderLinkForm, type FormData } from './formPage.js';
import { renderLinkList } from './listPage.js';

// Payment links in the portal (§The portal): the list with its filters, create, a link's page with its
// QR code, edit and disable. Every page calls the operation the API calls (src/paymentLinks/service.ts)
// with the body the API takes; the operation checks it, so each rule is the API's alone, and each
// error it answers is shown beside the input it names.

/** A link's page lists its newest payments, at most this many (the payments page has them all). */
const PAYMENTS_SHOWN = 50;

type RefParams = { Params: { reference: string } };

function linkTypeOf(raw: unknown): LinkType {
  return typeof raw === 'string' && (LINK_TYPES as readonly string[]).includes(raw) ? (raw as LinkType) : 'PayByLink';
}

function statusOf(raw: unknown): LinkStatus | null {
  return typeof raw === 'string' && (LINK_STATUSES as readonly string[]).includes(raw) ? (raw as LinkStatus) : null;
}

export const linksArea: PortalArea = {
  styles: LINK_STYLES,
  scripts: [{ run: enhanceItemRows, helpers: [writeMoney] }],
  routes(portal, deps: PortalDeps) {
    const { db } = deps;
    const route = portalRouter(portal, deps);

    const terminalsOf = async (merchantId: string): Promise<string[]> => (await listTerminals(db, merchantId)).map((t) => t.terminalIdentifier);

    /** The create form's data, with the merchant's terminals. */
    const createForm = async (merchantId: string, entry: CreateEntry, errors: FieldErrors): Promise<FormData> => ({
      mode: 'create',
      type: entry.type,
      entry,
      errors,
      terminals: await terminalsOf(merchantId),
      terminalIdentifier: entry.terminalIdentifier,
      recurringProcessingModel: entry.recurringProcessingModel,
      withMoney: true,
    });

    const editForm = (view: View, link: PaymentLinkView, entry: LinkEntry, errors: FieldErrors): FormData => {
      const t = translator(M, view.lang);
      const blocked = link.status === 'Disabled' ? t('notEditableDisabled') : link.status === 'Completed' ? t('notEditableCompleted') : undefined;
      return { mode: 'edit', type: link.type as LinkType, entry, errors, link, withMoney: link.salesCount === 0, blocked };
    };

    route
      .get('/links', { permission: 'links.read', view: renderLinkList })
      .handle(async ({ request, merchantId }: Ctx<{ Querystring: { status?: string; q?: string; page?: string; before?: string; after?: string } }>) => {
        const status = statusOf(request.query.status);
        const q = typeof request.query.q === 'string' ? request.query.q.trim().slice(0, 200) : '';
        if (status === null && q === '') {
          const page = pageParam(request.query.page);
          const list = await listLinkSummaries(deps, merchantId, page, PAGE_SIZE);
          return { data: { kind: 'all', links: list.links, page, pageSize: PAGE_SIZE, totalCount: list.totalCount } };
        }
        const keyset = keysetOf(request.query);
        const found = await searchPaymentLinks(deps, merchantId, { status, text: q === '' ? null : q }, keyset, PAGE_SIZE);
        return { data: { kind: 'search', links: found.links, status, q, older: found.older, newer: found.newer } };
      });

    route
      .get('/links/new', { permission: 'links.write', view: renderLinkForm })
      .handle(async ({ request, merchantId, session }: Ctx<{ Querystring: { type?: string } }>) => {
        const entry: CreateEntry = {
          ...emptyEntry(session.language),
          type: linkTypeOf(request.query.type),
          terminalIdentifier: '',
          recurringProcessingModel: '',
        };
        return { data: await createForm(merchantId, entry, new FieldErrors()) };
      });

    route.post('/links', { permission: 'links.write', view: renderLinkForm }).handle(async ({ merchantId, session, form, actor }) => {
      const entry = createEntryOf(form, linkTypeOf(form.text('type')));
      // Without scripts, "Add a row" posts the form: it comes back with one more row, nothing saved.
      if (form.text('_action') === 'addRow') {
        return { data: await createForm(merchantId, { ...entry, items: [...entry.items, blankItem()].slice(0, 200) }, new FieldErrors()) };
      }
      const built = createBody(entry, session.language);
      try {
        const created = await createPaymentLink({ ...deps, actor }, merchantId, built.body, undefined);
        return { seeOther: `${PORTAL}/links/${encodeURIComponent(created.paymentLinkReference)}?created=1` };
      } catch (err) {
        if (!(err instanceof ApiError && err.errors)) throw err;
        const errors = new FieldErrors(built.place(err.errors));
        return { status: 400, data: await createForm(merchantId, { ...entry, items: rowsToShow(entry.items, NEW_ROWS) }, errors) };
      }
    });

    route
      .get('/links/:reference', { permission: 'links.read', view: renderLinkDetail })
      .handle(async ({ request, merchantId }: Ctx<RefParams & { Querystring: { created?: string; updated?: string; disabled?: string } }>) => {
        const reference = request.params.reference;
        const [link, payments] = await Promise.all([
          getPaymentLink(deps, merchantId, reference),
          paymentsOf(deps, merchantId, { paymentLinkReference: reference }, PAYMENTS_SHOWN),
        ]);
        const q = request.query;
        const notice: DetailNotice = q.created !== undefined ? 'created' : q.updated !== undefined ? 'updated' : q.disabled !== undefined ? 'disabled' : null;
        return { data: { link, payments, paymentsLimit: PAYMENTS_SHOWN, notice } };
      });

    route
      .get('/links/:reference/qr.svg', { permission: 'links.read' })
      .handle(async ({ request, reply, merchantId }: Ctx<RefParams & { Querystring: { download?: string } }>) => {
        const link = await getPaymentLink(deps, merchantId, request.params.reference);
        const svg = await QRCode.toString(link.url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
        if (request.query.download !== undefined) reply.header('Content-Disposition', `attachment; filename="paylink-${link.paymentLinkReference}.svg"`);
        return { sent: reply.code(200).type('image/svg+xml').send(svg) };
      });

    route.get('/links/:reference/edit', { permission: 'links.write', view: renderLinkForm }).handle(async ({ request, merchantId, view }: Ctx<RefParams>) => {
      const link = await getPaymentLink(deps, merchantId, request.params.reference);
      const v = await view();
      const entry = entryOfLink(link, v.lang);
      return { data: editForm(v, link, { ...entry, items: rowsToShow(entry.items, 1) }, new FieldErrors()) };
    });

    route
      .post('/links/:reference/edit', { permission: 'links.write', view: renderLinkForm })
      .handle(async ({ request, merchantId, form, view, actor }: Ctx<RefParams>) => {
        // Another merchant's link is not found before anything in the form is looked at.
        const before = await getPaymentLink(deps, merchantId, request.params.reference);
        const v = await view();
        const entry = entryOf(form, UPDATE_NAMES);
        const withMoney = form.text('money') === '1';
        if (form.text('_action') === 'addRow') {
          return { data: editForm(v, before, { ...entry, items: [...entry.items, blankItem()].slice(0, 200) }, new FieldErrors()) };
        }
        const built = updateBody(before, entry, withMoney, v.lang);
        try {
          await updatePaymentLink({ ...deps, actor }, merchantId, built.body, () => undefined);
        } catch (err) {
          if (err instanceof ApiError && err.code === 'INVALID_STATE') {
            const now = await getPaymentLink(deps, merchantId, before.paymentLinkReference);
            return { status: 409, data: editForm(v, now, entry, new FieldErrors()) };
          }
          if (!(err instanceof ApiError && err.errors)) throw err;
          const data = editForm(v, before, { ...entry, items: rowsToShow(entry.items, 1) }, new FieldErrors(built.place(err.errors)));
          return { status: 400, data: { ...data, withMoney: withMoney && data.withMoney } };
        }
        return { seeOther: `${PORTAL}/links/${encodeURIComponent(before.paymentLinkReference)}?updated=1` };
      });

    route.get('/links/:reference/disable', { permission: 'links.write', view: renderDisable }).handle(async ({ request, merchantId }: Ctx<RefParams>) => {
      return { data: await getPaymentLink(deps, merchantId, request.params.reference) };
    });

    route.post('/links/:reference/disable', { permission: 'links.write' }).handle(async ({ request, merchantId, actor }: Ctx<RefParams>) => {
      const reference = request.params.reference;
      await disablePaymentLink({ ...deps, actor }, merchantId, { paymentLinkReference: reference }, () => undefined);
      return { seeOther: `${PORTAL}/links/${encodeURIComponent(reference)}?disabled=1` };
    });
  },
};
