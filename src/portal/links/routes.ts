import type { FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { ApiError } from '../../errors.js';
import { listTerminals } from '../../accounts/service.js';
import { parseCursor } from '../../db/keyset.js';
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
import { auditFor, formOf, pageParam, seeOther, sendPage, sessionOfRequest, viewFor, type PortalArea, type PortalDeps } from '../http.js';
import { translator } from '../i18n.js';
import { FieldErrors, type View } from '../view.js';
import { PORTAL } from '../views/layout.js';
import { LINK_STYLES, enhanceItemRows } from './browser.js';
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

const PAGE_SIZE = 20;
/** A link's page lists its newest payments, at most this many (the payments page has them all). */
const PAYMENTS_SHOWN = 50;

const read = { config: { portal: { permission: 'links.read' as const } }, schema: { hide: true } };
const write = { config: { portal: { permission: 'links.write' as const } }, schema: { hide: true } };

type RefParams = { Params: { reference: string } };

function linkTypeOf(raw: unknown): LinkType {
  return typeof raw === 'string' && (LINK_TYPES as readonly string[]).includes(raw) ? (raw as LinkType) : 'PayByLink';
}

function statusOf(raw: unknown): LinkStatus | null {
  return typeof raw === 'string' && (LINK_STATUSES as readonly string[]).includes(raw) ? (raw as LinkStatus) : null;
}

export const linksArea: PortalArea = {
  styles: LINK_STYLES,
  scripts: [enhanceItemRows],
  routes(portal, deps: PortalDeps) {
    const { db } = deps;
    const audit = auditFor(deps);

    const terminalsOf = async (merchantId: string): Promise<string[]> => (await listTerminals(db, merchantId)).map((t) => t.terminalIdentifier);

    const createForm = async (request: FastifyRequest, reply: FastifyReply, status: number, entry: CreateEntry, errors: FieldErrors): Promise<FastifyReply> => {
      const [view, terminals] = await Promise.all([viewFor(request, reply, deps), terminalsOf(sessionOfRequest(request).merchantId)]);
      const data: FormData = {
        mode: 'create',
        type: entry.type,
        entry,
        errors,
        terminals,
        terminalIdentifier: entry.terminalIdentifier,
        recurringProcessingModel: entry.recurringProcessingModel,
        withMoney: true,
      };
      return sendPage(reply, status, renderLinkForm(view, data));
    };

    const editForm = (view: View, link: PaymentLinkView, entry: LinkEntry, errors: FieldErrors): FormData => {
      const t = translator(M, view.lang);
      const blocked = link.status === 'Disabled' ? t('notEditableDisabled') : link.status === 'Completed' ? t('notEditableCompleted') : undefined;
      return { mode: 'edit', type: link.type as LinkType, entry, errors, link, withMoney: link.salesCount === 0, blocked };
    };

    portal.get<{ Querystring: { status?: string; q?: string; page?: string; before?: string; after?: string } }>('/links', read, async (request, reply) => {
      const merchantId = sessionOfRequest(request).merchantId;
      const status = statusOf(request.query.status);
      const q = typeof request.query.q === 'string' ? request.query.q.trim().slice(0, 200) : '';
      const viewing = viewFor(request, reply, deps);
      if (status === null && q === '') {
        const page = pageParam(request.query.page);
        const [view, list] = await Promise.all([viewing, listLinkSummaries(deps, merchantId, page, PAGE_SIZE)]);
        return sendPage(reply, 200, renderLinkList(view, { kind: 'all', links: list.links, page, pageSize: PAGE_SIZE, totalCount: list.totalCount }));
      }
      const keyset = parseCursor('newer', request.query.after) ?? parseCursor('older', request.query.before);
      const [view, found] = await Promise.all([viewing, searchPaymentLinks(deps, merchantId, { status, text: q === '' ? null : q }, keyset, PAGE_SIZE)]);
      return sendPage(reply, 200, renderLinkList(view, { kind: 'search', links: found.links, status, q, older: found.older, newer: found.newer }));
    });

    portal.get<{ Querystring: { type?: string } }>('/links/new', write, async (request, reply) => {
      const entry: CreateEntry = {
        ...emptyEntry(sessionOfRequest(request).language),
        type: linkTypeOf(request.query.type),
        terminalIdentifier: '',
        recurringProcessingModel: '',
      };
      return createForm(request, reply, 200, entry, new FieldErrors());
    });

    portal.post('/links', write, async (request, reply) => {
      const merchantId = sessionOfRequest(request).merchantId;
      const form = formOf(request);
      const entry = createEntryOf(form, linkTypeOf(form.text('type')));
      // Without scripts, "Add a row" posts the form: it comes back with one more row, nothing saved.
      if (form.text('_action') === 'addRow') {
        return createForm(request, reply, 200, { ...entry, items: [...entry.items, blankItem()].slice(0, 200) }, new FieldErrors());
      }
      const built = createBody(entry, sessionOfRequest(request).language);
      try {
        const created = await createPaymentLink(deps, merchantId, built.body, undefined);
        // The body was accepted, so these are the link's type, amount and currency.
        await audit(request, 'link.create', created.paymentLinkReference, { type: built.body.type, amount: built.body.amount, currency: built.body.currency });
        return seeOther(reply, `${PORTAL}/links/${encodeURIComponent(created.paymentLinkReference)}?created=1`);
      } catch (err) {
        if (!(err instanceof ApiError && err.errors)) throw err;
        const errors = new FieldErrors(built.place(err.errors));
        return createForm(request, reply, 400, { ...entry, items: rowsToShow(entry.items, NEW_ROWS) }, errors);
      }
    });

    portal.get<RefParams & { Querystring: { created?: string; updated?: string; disabled?: string } }>('/links/:reference', read, async (request, reply) => {
      const merchantId = sessionOfRequest(request).merchantId;
      const reference = request.params.reference;
      const [view, link, payments] = await Promise.all([
        viewFor(request, reply, deps),
        getPaymentLink(deps, merchantId, reference),
        paymentsOf(deps, merchantId, { paymentLinkReference: reference }, PAYMENTS_SHOWN),
      ]);
      const q = request.query;
      const notice: DetailNotice = q.created !== undefined ? 'created' : q.updated !== undefined ? 'updated' : q.disabled !== undefined ? 'disabled' : null;
      return sendPage(reply, 200, renderLinkDetail(view, { link, payments, paymentsLimit: PAYMENTS_SHOWN, notice }));
    });

    portal.get<RefParams & { Querystring: { download?: string } }>('/links/:reference/qr.svg', read, async (request, reply) => {
      const link = await getPaymentLink(deps, sessionOfRequest(request).merchantId, request.params.reference);
      const svg = await QRCode.toString(link.url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      if (request.query.download !== undefined) reply.header('Content-Disposition', `attachment; filename="paylink-${link.paymentLinkReference}.svg"`);
      return reply.code(200).type('image/svg+xml').send(svg);
    });

    portal.get<RefParams>('/links/:reference/edit', write, async (request, reply) => {
      const view = await viewFor(request, reply, deps);
      const link = await getPaymentLink(deps, sessionOfRequest(request).merchantId, request.params.reference);
      const entry = entryOfLink(link, view.lang);
      const data = editForm(view, link, { ...entry, items: rowsToShow(entry.items, 1) }, new FieldErrors());
      return sendPage(reply, 200, renderLinkForm(view, data));
    });

    portal.post<RefParams>('/links/:reference/edit', write, async (request, reply) => {
      const merchantId = sessionOfRequest(request).merchantId;
      // Another merchant's link is not found before anything in the form is looked at.
      const before = await getPaymentLink(deps, merchantId, request.params.reference);
      const view = await viewFor(request, reply, deps);
      const form = formOf(request);
      const entry = entryOf(form, UPDATE_NAMES);
      const withMoney = form.text('money') === '1';
      if (form.text('_action') === 'addRow') {
        const data = editForm(view, before, { ...entry, items: [...entry.items, blankItem()].slice(0, 200) }, new FieldErrors());
        return sendPage(reply, 200, renderLinkForm(view, data));
      }
      const built = updateBody(before, entry, withMoney, view.lang);
      try {
        await updatePaymentLink(deps, merchantId, built.body, () => undefined);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'INVALID_STATE') {
          const now = await getPaymentLink(deps, merchantId, before.paymentLinkReference);
          return sendPage(reply, 409, renderLinkForm(view, editForm(view, now, entry, new FieldErrors())));
        }
        if (!(err instanceof ApiError && err.errors)) throw err;
        const data = editForm(view, before, { ...entry, items: rowsToShow(entry.items, 1) }, new FieldErrors(built.place(err.errors)));
        return sendPage(reply, 400, renderLinkForm(view, { ...data, withMoney: withMoney && data.withMoney }));
      }
      const after = await getPaymentLink(deps, merchantId, before.paymentLinkReference);
      await audit(request, 'link.update', before.paymentLinkReference, { changed: changedFields(before, after) });
      return seeOther(reply, `${PORTAL}/links/${encodeURIComponent(before.paymentLinkReference)}?updated=1`);
    });

    portal.get<RefParams>('/links/:reference/disable', write, async (request, reply) => {
      const link = await getPaymentLink(deps, sessionOfRequest(request).merchantId, request.params.reference);
      const view = await viewFor(request, reply, deps);
      return sendPage(reply, 200, renderDisable(view, link));
    });

    portal.post<RefParams>('/links/:reference/disable', write, async (request, reply) => {
      const merchantId = sessionOfRequest(request).merchantId;
      const reference = request.params.reference;
      await disablePaymentLink(deps, merchantId, { paymentLinkReference: reference }, () => undefined);
      await audit(request, 'link.disable', reference);
      return seeOther(reply, `${PORTAL}/links/${encodeURIComponent(reference)}?disabled=1`);
    });
  },
};

/** The fields an update changed, by name (their values stay out of the audit log). */
function changedFields(before: PaymentLinkView, after: PaymentLinkView): string[] {
  const keys = ['description', 'themeKey', 'returnUrl', 'culture', 'validUntil', 'maxSalesCount', 'shopperInfos', 'amount', 'currency', 'items'] as const;
  return keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}
