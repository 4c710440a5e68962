import type { FastifyReply, FastifyRequest } from 'fastify';
import { appPart } from '../../http/app.js';
import { receiptOf } from '../../payments/service.js';
import {
  PLAIN_CHECKOUT,
  PLAUSIBLE_REFERENCE,
  chargeAmount,
  completeChallenge,
  openCheckoutable,
  pay,
  type Checkoutable,
  type PayOutcome,
  type Target,
} from '../shopper.js';
import { quoteTypedCode } from '../promotion.js';
import { APPLY_CODE_ACTION, REMOVE_CODE_FIELD, payableAmount, type PromotionView } from './promotionCode.js';
import type { InfoProblem, ShopperInput } from '../shopperInput.js';
import { customFormValues, customValuesOf } from './customFieldsSection.js';
import { PageForm } from './form.js';
import { pageTranslator, type MessageKey } from './i18n.js';
import { CHARGE_PAGE_PREFIX, completeTokenChallenge, findTokenChallenge, type TokenChallengeView } from '../../payments/tokens/service.js';
import { renderChargeOutcome } from './chargeOutcomePage.js';
import type { PageContext } from './layout.js';
import { renderMessage } from './messagePage.js';
import { EMPTY_FORM, renderPayPage, type FormState } from './payPage.js';
import { UPDATE_FIELD, quantityErrors, typedQuantities } from './quantityChoice.js';
import { atQuantities, problemsOf, quantitiesOf } from '../quantities.js';
import { renderReceipt } from './receiptPage.js';
import { renderStatusPage } from './statusPage.js';
import { renderThreeDSPage } from './threeDSPage.js';
import { PAGE_ASSETS } from './assets.js';
import { serveAssets } from '../../web/assets.js';
import { pageTheme } from '../../themes/service.js';
import { usePageHeaders } from '../../web/headers.js';
import { negotiateLang } from '../../web/lang.js';
import { bindForms, formToken } from '../../web/formTokens.js';
import { usePageErrors } from '../../web/errorPages.js';
import { notFound } from '../../errors.js';
import { formatMoney } from '../../html/format.js';
import { ReceiptSigner } from './receipts.js';

// The shopper's pages (§References and URLs, §Link status, §Hosted checkout, §The simulated acquirer): /pay/{paymentLinkReference} and /checkout/{checkoutReference}.
// They live in their own Fastify context inside the web layer (src/web/: cookies, form tokens,
// headers), so the form-post parser and the HTML error pages apply here only; the /api/v1 routes
// keep answering 415 for anything but JSON.

const FORM_BODY_LIMIT = 16 * 1024;

type Kind = Target['kind'];
const PREFIX: Record<Kind, string> = { link: '/pay', session: '/checkout' };

interface RefParams {
  reference: string;
}

export const shopperPageRoutes = appPart('shopper-pages', ['config', 'db', 'clock', 'sealer', 'acquirer', 'unroutablePages'], async (app) => {
  const { db, clock, config, acquirer, sealer } = app;
  const signer = new ReceiptSigner(db);
  const payDeps = { db, clock, acquirer, sealer, receiptsPerHour: config.receiptsPerHour };

  await app.register(async (pages) => {
    pages.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) => {
      done(null, new PageForm(typeof body === 'string' ? body : body.toString('utf8')));
    });

    usePageHeaders(pages, 'shopper');

    // A page's forms are bound to the page (a link's, a session's, a charge's), so that a token taken
    // from one page pays nothing on another; the 3-D Secure step posts with its page's token.
    pages.addHook('onRequest', (request, _reply, done) => {
      const { reference } = request.params as Partial<RefParams>;
      const prefix = /^\/[a-z]+/.exec(request.routeOptions.url ?? '')?.[0];
      bindForms(request, reference !== undefined && prefix !== undefined ? `page:${prefix}/${encodeURIComponent(reference)}` : null);
      done();
    });

    // The error pages are the web layer's rules (src/web/errorPages.ts) in the shopper's frame and words.
    usePageErrors(pages, {
      logMessage: 'page error',
      // A page URL that is not valid percent-encoding (cut short or changed in copying) names no payment.
      unroutable: { prefixes: [...Object.values(PREFIX), CHARGE_PAGE_PREFIX] },
      render: (request, _reply, e) => {
        const form = request.body instanceof PageForm ? request.body : null;
        const ctx = pageContext(request, undefined, '/', form?.get('lang') ?? (request.query as { lang?: string } | undefined)?.lang);
        if (e.problem === 'formToken') {
          // The post never reached its handler: back to the page the form was bound to.
          const page = request.formBinding?.replace(/^page:/, '') ?? '/';
          return renderMessage({ ...ctx, basePath: page }, null, 'csrfTitle', 'csrf', { href: page, label: 'startAgain' });
        }
        if (e.problem === 'notFound') return renderMessage(ctx, null, 'notFoundTitle', 'notFound');
        return renderMessage(ctx, null, 'errorTitle', 'error');
      },
    });

    serveAssets(pages, PAGE_ASSETS);

    for (const kind of ['link', 'session'] as const) {
      const base = `${PREFIX[kind]}/:reference`;

      pages.get<{ Params: RefParams; Querystring: { lang?: string } }>(base, { schema: { hide: true } }, async (request, reply) => {
        const target = { kind, reference: request.params.reference };
        // §Link status: every page view counts (a HEAD is not a view).
        const c = await openCheckoutable({ db, clock }, target, { countVisit: kind === 'link' && request.method === 'GET' });
        const ctx = await themedContext(request, c, basePath(target), request.query.lang);
        if (!c) throw notFound('payment page');
        if (!c.payable) return html(reply, 200, renderStatusPage(ctx, c));
        const csrf = formToken(request, reply);
        return html(reply, 200, renderPayPage(ctx, c, csrf, EMPTY_FORM));
      });

      pages.post<{ Params: RefParams }>(base, { schema: { hide: true }, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
        const target = { kind, reference: request.params.reference };
        const form = request.body instanceof PageForm ? request.body : null;
        // The card leaves the form at once; from here on it exists only as this local.
        const rawCard = form?.takeCard() ?? { cardNumber: '', expiryDate: '', cvc: '' };
        const c = await openCheckoutable({ db, clock }, target, { countVisit: false });
        const ctx = await themedContext(request, c, basePath(target), form?.get('lang'));
        if (!c) throw notFound('payment page');
        if (!form) return html(reply, 415, renderMessage(ctx, c, 'errorTitle', 'error'));
        if (!c.payable) return html(reply, 409, renderStatusPage(ctx, c));

        // The code box's Apply: the page again with the new total and the code kept; nothing is paid.
        if (form.get('action') === APPLY_CODE_ACTION) {
          // On the total for the quantities the page showed (the code's form carries them).
          const kept = quantitiesOf(c, (name) => form.get(name));
          const base = atQuantities(c, problemsOf(c, kept).length === 0 ? kept : null);
          const applied = await promotionOf(request, base, form.get(REMOVE_CODE_FIELD) === '1' ? '' : form.get('promotionCode'));
          return html(codeStatus(reply, applied), renderPayPage(ctx, base, formToken(request, reply), { ...EMPTY_FORM, promotion: applied }));
        }

        // What the shopper typed, as the operation takes it; pay() checks all of it on the locked row.
        const shopper = shopperInputOf(c, form);
        const quantities = shopper.quantities;
        const quantityProblems = problemsOf(c, quantities);
        const shown = atQuantities(c, quantityProblems.length === 0 ? quantities : null);
        // The code the payment's form carries, on the total for the quantities chosen, as the page shows it.
        const promotion = await promotionOf(request, shown, form.get('promotionCode'));
        const values = typedValues(c, form, shopper);
        const cardTyped = rawCard.cardNumber !== '' || rawCard.cvc !== '';
        const csrf = formToken(request, reply);

        if (form.get(UPDATE_FIELD) !== undefined && c.choice !== null) {
          // "Update total": the page again at the new quantities; nothing is paid, nothing else is checked.
          const state: FormState =
            quantityProblems.length > 0
              ? { values, errors: quantityErrors(quantityProblems), alert: ctx.t('errFormSummary'), promotion }
              : {
                  values: { ...values, expiryDate: rawCard.expiryDate.slice(0, 7) },
                  errors: {},
                  alert: cardTyped ? ctx.t('errCardAgain') : null,
                  status: ctx.t('totalUpdated', { amount: formatMoney(payableAmount(shown, promotion), shown.currency, ctx.lang) }),
                  promotion,
                };
          return html(reply, quantityProblems.length > 0 ? 400 : 200, renderPayPage(ctx, shown, csrf, state));
        }

        if (promotion?.refusal) {
          // A code that does not apply (or was not looked at, past the limits on refused codes) is never
          // dropped quietly: nothing is paid, and the page says why beside the code.
          const state: FormState = { values, errors: {}, alert: `${ctx.t('errFormSummary')}${cardTyped ? ` ${ctx.t('errCardAgain')}` : ''}`, promotion };
          return html(codeStatus(reply, promotion), renderPayPage(ctx, shown, csrf, state));
        }

        const shownTotal = Number(form.get('shownTotal') ?? Number.NaN);
        const outcome = await pay(payDeps, target, {
          card: rawCard,
          shopper,
          ...(promotion?.applied ? { promotionCode: promotion.code } : {}),
          lang: ctx.lang,
          from: { address: request.ip },
          ...(Number.isSafeInteger(shownTotal) ? { shownTotal } : {}),
        });
        // What the shopper typed is shown again, but for the card number and the security code: those
        // never go back into a page. The expiry may, so a mistyped number costs only the two.
        return answer(request, reply, ctx, shown, target, outcome, { ...values, expiryDate: rawCard.expiryDate.slice(0, 7) }, csrf, promotion, cardTyped);
      });

      pages.post<{ Params: RefParams }>(`${base}/3ds`, { schema: { hide: true }, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
        const target = { kind, reference: request.params.reference };
        const form = request.body instanceof PageForm ? request.body : null;
        const c = await openCheckoutable({ db, clock }, target, { countVisit: false });
        const ctx = await themedContext(request, c, basePath(target), form?.get('lang'));
        if (!c) throw notFound('payment page');
        if (!form) return html(reply, 415, renderMessage(ctx, c, 'errorTitle', 'error'));
        const challengeId = form.get('challenge') ?? '';
        const confirmed = form.get('action') === 'confirm';
        const outcome = await completeChallenge(payDeps, target, challengeId, confirmed, {
          lang: ctx.lang,
          from: { address: request.ip },
        });
        if (outcome.kind === 'ChallengeGone') {
          return html(reply, 410, renderMessage(ctx, c, 'threeDTitle', 'threeDGone', { href: ctx.basePath, label: 'startAgain' }));
        }
        const csrf = formToken(request, reply);
        // The shopper pressed Cancel: the acquirer records it as not authenticated, the page says what they did.
        if (!confirmed && outcome.kind === 'Refused') return html(reply, 200, renderPayPage(ctx, c, csrf, { ...EMPTY_FORM, alert: ctx.t('threeDCancelled') }));
        return answer(request, reply, ctx, c, target, outcome, {}, csrf);
      });

      pages.get<{ Params: RefParams; Querystring: { p?: string; s?: string; lang?: string } }>(
        `${base}/receipt`,
        { schema: { hide: true } },
        async (request, reply) => {
          const target = { kind, reference: request.params.reference };
          const { p, s } = request.query;
          const c = await openCheckoutable({ db, clock }, target, { countVisit: false });
          const ctx = await themedContext(request, c, basePath(target), request.query.lang);
          const valid = c !== undefined && p !== undefined && (await signer.verify(s, 'receipt', kind, target.reference, p));
          const payment = valid && p !== undefined ? await receiptOf({ db }, p) : undefined;
          if (!c || !payment || !payment.success) throw notFound('payment page');
          return html(
            reply,
            200,
            renderReceipt(ctx, c, {
              payfacReference: p as string,
              amount: payment.amount,
              currency: payment.currency,
              cardSummary: payment.cardSummary,
              paymentMethod: payment.paymentMethod,
              token: payment.token,
              promotionCode: payment.promotionCode,
              discount: payment.discountAmount,
            }),
          );
        },
      );
    }

    // The 3-D Secure step of a saved-card charge (POST /api/v1/payment answered RedirectShopper with
    // this page's URL). Confirmed or cancelled, the charge is recorded and the shopper goes back to the
    // shop's returnUrl with the charge's checkoutReference added.
    const chargeBase = `${CHARGE_PAGE_PREFIX}/:reference`;
    const chargePath = (reference: string) => `${CHARGE_PAGE_PREFIX}/${encodeURIComponent(reference)}`;

    pages.get<{ Params: RefParams; Querystring: { lang?: string } }>(chargeBase, { schema: { hide: true } }, async (request, reply) => {
      const { reference } = request.params;
      const view = PLAUSIBLE_REFERENCE.test(reference) ? await findTokenChallenge({ db, clock }, reference) : undefined;
      const c = view && chargeCheckoutable(view);
      const ctx = pageContext(request, c, chargePath(reference), request.query.lang);
      if (!view || !c) throw notFound('payment page');
      if (view.open) {
        const csrf = formToken(request, reply);
        return html(reply, 200, renderThreeDSPage(ctx, c, { masked: '', last4: view.cardSummary, expiry: '', paymentMethod: '' }, reference, csrf));
      }
      if (!view.completed) return html(reply, 410, renderMessage(ctx, c, 'threeDTitle', 'threeDGone', { href: view.returnUrl, label: 'continue' }));
      const payment = await receiptOf({ db }, view.payfacReference);
      return html(reply, 200, renderChargeOutcome(ctx, c, payment?.success ? { amount: payment.amount, currency: payment.currency } : null, view.returnUrl));
    });

    pages.post<{ Params: RefParams }>(`${chargeBase}/3ds`, { schema: { hide: true }, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
      const { reference } = request.params;
      const form = request.body instanceof PageForm ? request.body : null;
      const view = PLAUSIBLE_REFERENCE.test(reference) ? await findTokenChallenge({ db, clock }, reference) : undefined;
      const c = view && chargeCheckoutable(view);
      const ctx = pageContext(request, c, chargePath(reference), form?.get('lang'));
      if (!view || !c) throw notFound('payment page');
      if (!form) return html(reply, 415, renderMessage(ctx, c, 'errorTitle', 'error'));
      const outcome = await completeTokenChallenge({ ...payDeps, publicBaseUrl: config.publicBaseUrl }, reference, form.get('action') === 'confirm');
      if (outcome.kind === 'NotFound') throw notFound('payment page');
      if (outcome.kind === 'Gone') return html(reply, 410, renderMessage(ctx, c, 'threeDTitle', 'threeDGone', { href: outcome.returnUrl, label: 'continue' }));
      // Post/redirect/get: the page then shows the outcome and sends the shopper back to the shop.
      return reply.code(303).header('Location', `${ctx.basePath}?lang=${ctx.lang}`).send();
    });
  });

  /** The charge's page in the shape the page renderer knows (a checkout of the merchant, for its amount). */
  function chargeCheckoutable(v: TokenChallengeView): Checkoutable {
    return {
      kind: 'session',
      reference: v.checkoutReference,
      merchantId: '',
      merchantName: v.merchantName,
      terminalIdentifier: '',
      description: '',
      amount: v.amount,
      currency: v.currency,
      culture: 'is',
      themeKey: null,
      items: [],
      shopperInfos: [],
      returnUrl: v.returnUrl,
      cancelUrl: v.returnUrl,
      ...PLAIN_CHECKOUT,
      status: v.open ? 'New' : 'Completed',
      payable: v.open,
      merchantReference: '',
      checkoutReference: v.checkoutReference,
    };
  }

  /** The code the shopper gave on a payable page, and what it does to the amount now; undefined when none was given. */
  async function promotionOf(request: FastifyRequest, c: Checkoutable, typed: string | null | undefined, counted = true): Promise<PromotionView | undefined> {
    const code = (typed ?? '').trim().slice(0, 40);
    const quote = await quoteTypedCode(db.pool, c, chargeAmount(c), code, { address: request.ip, now: clock.now(), counted });
    if (quote === undefined) return undefined;
    if ('throttledForSeconds' in quote) return { code, applied: null, refusal: 'throttled', retryAfterSeconds: quote.throttledForSeconds };
    if ('refusal' in quote) return { code, applied: null, refusal: quote.refusal };
    // An applied code is shown as the merchant wrote it (codes match without regard to case).
    return { code: quote.applied.code, applied: { discount: quote.applied.discount, total: quote.applied.total, terms: quote.applied.terms }, refusal: null };
  }

  /** The status of a page that answers a typed code: 429 with Retry-After past the limits, 400 refused, else 200. */
  function codeStatus(reply: FastifyReply, promotion: PromotionView | undefined): FastifyReply {
    if (promotion?.refusal === 'throttled') return reply.code(429).header('Retry-After', String(promotion.retryAfterSeconds ?? 60));
    return reply.code(promotion?.refusal ? 400 : 200);
  }

  function basePath(target: Target): string {
    return `${PREFIX[target.kind]}/${encodeURIComponent(target.reference)}`;
  }

  /** The page's language: the shopper's choice (?lang= or the form's), else the link's or session's culture. */
  function pageContext(request: FastifyRequest, c: Checkoutable | undefined, path: string, chosen?: string): PageContext {
    const lang = negotiateLang(request, [chosen, c?.culture], 'is');
    return { lang, t: pageTranslator(lang), basePath: path, theme: null };
  }

  /** The context of a link's or session's page, with its merchant's theme when its themeKey names one. */
  async function themedContext(request: FastifyRequest, c: Checkoutable | undefined, path: string, lang?: string): Promise<PageContext> {
    const ctx = pageContext(request, c, path, lang);
    return c ? { ...ctx, theme: (await pageTheme(db, c.merchantId, c.themeKey)) ?? null } : ctx;
  }

  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    ctx: PageContext,
    c: Checkoutable,
    target: Target,
    outcome: PayOutcome | { kind: 'PromotionRefused' },
    values: Record<string, string>,
    csrf: string,
    promotion?: PromotionView,
    cardTyped = false,
  ): Promise<FastifyReply> {
    switch (outcome.kind) {
      case 'Authorised': {
        // Post/redirect/get: reloading the receipt never pays twice.
        const sig = await signer.sign('receipt', target.kind, target.reference, outcome.payfacReference);
        const q = new URLSearchParams({ p: outcome.payfacReference, s: sig, lang: ctx.lang });
        return reply.code(303).header('Location', `${ctx.basePath}/receipt?${q.toString()}`).send();
      }
      case 'Refused': {
        const state: FormState = {
          values,
          errors: {},
          alert: ctx.t(c.tokenize && c.amount === 0 ? 'refusedToken' : 'refused', { reason: shopperReason(ctx, outcome.reason) }),
          promotion,
        };
        return html(reply, 200, renderPayPage(ctx, c, csrf, state));
      }
      case 'Challenge':
        // The shopper confirms exactly what will be charged: the total at the chosen quantities, after a code.
        return html(reply, 200, renderThreeDSPage(ctx, { ...c, amount: outcome.amount }, outcome.card, outcome.challengeId, csrf));
      case 'Invalid':
      case 'Changed': {
        // Every problem beside its field, on the link or session as it is now (the merchant may have
        // changed its terms, custom fields or quantities after the page was shown).
        const errors: Partial<Record<string, MessageKey>> = { ...quantityErrors(outcome.problems.quantities) };
        for (const [field, problem] of Object.entries(outcome.problems.answers)) errors[`shopper-${field}`] = INFO_ERROR[problem];
        if (outcome.problems.terms) errors.acceptTerms = 'errTerms';
        if (outcome.kind === 'Invalid') for (const field of outcome.card) errors[field] = CARD_ERROR[field];
        const again = cardTyped || outcome.kind === 'Changed' ? ` ${ctx.t('errCardAgain')}` : '';
        const state: FormState = { values, errors, alert: `${ctx.t('errFormSummary')}${again}`, customProblems: outcome.problems.custom, promotion };
        return html(reply, 400, renderPayPage(ctx, outcome.checkoutable, csrf, state));
      }
      case 'TotalChanged': {
        // The quantities were changed without "Update total", or the link changed: nothing charged; the total shown first.
        // Everything the shopper typed comes back (but the card number and CVC), with the code they applied.
        const fresh = atQuantities((await openCheckoutable({ db, clock }, target, { countVisit: false })) ?? c, outcome.quantities);
        const kept = await promotionOf(request, fresh, promotion?.code, false);
        const amount = formatMoney(payableAmount(fresh, kept), c.currency, ctx.lang);
        const state: FormState = { values, errors: {}, alert: `${ctx.t('totalChanged', { amount })} ${ctx.t('errCardAgain')}`, promotion: kept };
        return html(reply, 409, renderPayPage(ctx, fresh, csrf, state));
      }
      case 'PromotionRefused': {
        // The code no longer applies (another payment reached its cap, or the merchant changed it): the
        // page again with why, and the total without it; nothing was charged.
        const fresh = (await openCheckoutable({ db, clock }, target, { countVisit: false })) ?? c;
        // Why the code it took no longer applies: no guess of the shopper's, so not counted as one.
        const again = await promotionOf(request, fresh, promotion?.code, false);
        const state: FormState = { values, errors: {}, alert: `${ctx.t('promoRefusedPay')} ${ctx.t('errCardAgain')}`, promotion: again };
        return html(reply, 409, renderPayPage(ctx, fresh, csrf, state));
      }
      case 'PlacesHeld': {
        // Nothing charged, nothing held: the page again with what the shopper typed (but the card number and CVC).
        const state: FormState = {
          values,
          errors: {},
          alert: `${ctx.t(outcome.what === 'code' ? 'codeHeld' : c.kind === 'session' ? 'sessionHeld' : 'placesHeld')} ${ctx.t('errCardAgain')}`,
          promotion,
        };
        return html(reply, 409, renderPayPage(ctx, c, csrf, state));
      }
      case 'NotPayable': {
        const fresh = (await openCheckoutable({ db, clock }, target, { countVisit: false })) ?? c;
        return html(reply, 409, renderStatusPage(ctx, fresh));
      }
      case 'NotFound':
        request.log.warn('payment target vanished');
        throw notFound('payment page');
    }
  }
});

const INFO_ERROR: Record<InfoProblem, MessageKey> = { required: 'errRequired', tooLong: 'errTooLong', format: 'errFormat' };

const CARD_ERROR: Record<'cardNumber' | 'expiryDate' | 'cvc', MessageKey> = {
  cardNumber: 'errCardNumber',
  expiryDate: 'errExpiryDate',
  cvc: 'errCvc',
};

/** The shopper's answers, terms, custom fields and quantities as the form sent them (the card apart). */
function shopperInputOf(c: Checkoutable, form: PageForm): ShopperInput {
  const answers: Record<string, string> = {};
  // Hidden fields are not on the page, and a Prefilled one is the merchant's value whatever the form says.
  for (const info of c.kind === 'link' ? c.shopperInfos : []) {
    if (info.requirementType === 'Optional' || info.requirementType === 'Required') answers[info.field] = form.get(`shopper-${info.field}`) ?? '';
  }
  return {
    answers,
    acceptedTerms: form.get('acceptTerms') === 'yes',
    customValues: customValuesOf(c.customFields, form),
    quantities: quantitiesOf(c, (name) => form.get(name)),
  };
}

/** What the page shows again in its fields: everything typed but the card's number and security code. */
function typedValues(c: Checkoutable, form: PageForm, shopper: ShopperInput): Record<string, string> {
  return {
    ...Object.fromEntries(Object.entries(shopper.answers).map(([field, v]) => [field, v.trim()])),
    ...customFormValues(shopper.customValues),
    ...typedQuantities(c, form),
    ...(shopper.acceptedTerms ? { acceptTerms: 'yes' } : {}),
  };
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply;
function html(reply: FastifyReply, body: string): FastifyReply;
function html(reply: FastifyReply, statusOrBody: number | string, body?: string): FastifyReply {
  if (typeof statusOrBody === 'number') reply.code(statusOrBody);
  return reply.type('text/html; charset=utf-8').send(body ?? statusOrBody);
}

/**
 * Why the acquirer refused a card, in the page's language: the reasons it names (kept as they are on
 * the payment and in its events, docs/events.md) in words, any other as it is.
 */
const SHOPPER_REASON: Readonly<Record<string, MessageKey>> = {
  Refused: 'reasonRefused',
  'Expired Card': 'reasonExpiredCard',
  '3D Not Authenticated': 'reasonNotAuthenticated',
};

function shopperReason(ctx: PageContext, reason: string): string {
  const key = SHOPPER_REASON[reason];
  return key ? ctx.t(key) : reason;
}
