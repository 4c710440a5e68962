import { ApiError, type FieldError } from '../../errors.js';
import { createPromotionCode, getPromotionCode, listPromotionCodes, updatePromotionCode, type PromotionCodeView } from '../../promotionCodes/service.js';
import { PAGE_SIZE, pageParam, savedNotice, wholeNumberOf, type Form, type PortalArea, type PortalDeps } from '../http.js';
import { localInputOf, minorOf, timestampOf } from '../links/form.js';
import { portalRouter, type Ctx } from '../route.js';
import { FieldErrors } from '../view.js';
import { NEW_CODE, codePath, renderCodeList, renderEditCode, renderNewCode, type CodeFormValues } from './pages.js';

// Promotion codes in the portal (docs/portal.md, Promotion codes): list, make and change the merchant's
// codes. The rules are the promotion codes module's: these routes turn the form into the service's input
// and show its field errors beside the fields. Everyone who reads links reads them; who writes links
// makes and changes them.

type IdParams = { Params: { promotionCodeId: string } };

/** The kinds of discount the new-code form offers. */
const KINDS: readonly string[] = ['percent', 'amount'];

function valuesOf(form: Form): CodeFormValues {
  return {
    code: form.text('code').trim().slice(0, 100),
    kind: form.text('kind') === 'amount' ? 'amount' : 'percent',
    percentOff: form.text('percentOff').slice(0, 20),
    amountOff: form.text('amountOff').slice(0, 20),
    currency: form.text('currency').slice(0, 3),
    expiresAt: form.text('expiresAt').slice(0, 30),
    maxRedemptions: form.text('maxRedemptions').slice(0, 20),
    active: form.text('active') === 'on',
  };
}

function storedValues(c: PromotionCodeView): CodeFormValues {
  return {
    ...NEW_CODE,
    code: c.code,
    expiresAt: localInputOf(c.expiresAt),
    maxRedemptions: c.maxRedemptions !== null ? String(c.maxRedemptions) : '',
    active: c.active,
  };
}

/** The create's input: the kind chosen decides which of the two amounts is sent; an amount typed in major units goes as minor units. */
function createInput(v: CodeFormValues): Record<string, unknown> {
  const expiresAt = timestampOf(v.expiresAt);
  const max = wholeNumberOf(v.maxRedemptions);
  const input: Record<string, unknown> = { code: v.code, active: v.active };
  if (v.kind === 'percent') input.percentOff = wholeNumberOf(v.percentOff) ?? '';
  else {
    input.amountOff = minorOf(v.amountOff) ?? (v.amountOff.trim() === '' ? undefined : v.amountOff);
    input.currency = v.currency;
  }
  if (expiresAt !== undefined) input.expiresAt = expiresAt;
  if (max !== undefined) input.maxRedemptions = max;
  return input;
}

function refused(err: unknown): FieldError[] {
  if (err instanceof ApiError && err.code === 'VALIDATION_FAILED' && err.errors) return [...err.errors];
  throw err;
}

export const promotionCodesArea: PortalArea = {
  routes(portal, deps: PortalDeps) {
    const route = portalRouter(portal, deps);

    route
      .get('/promotion-codes', { permission: 'links.read', view: renderCodeList })
      .handle(async ({ request, merchantId }: Ctx<{ Querystring: { page?: string } }>) => {
        const page = pageParam(request.query.page);
        const { data, totalCount } = await listPromotionCodes(deps, merchantId, page, PAGE_SIZE);
        return { data: { codes: data, page, pageSize: PAGE_SIZE, totalCount, now: deps.clock.now() } };
      });

    route
      .get('/promotion-codes/new', { permission: 'links.write', view: renderNewCode })
      .handle(async () => ({ data: { values: NEW_CODE, errors: new FieldErrors() } }));

    route.post('/promotion-codes', { permission: 'links.write', view: renderNewCode }).handle(async ({ merchantId, form, actor }) => {
      const values = valuesOf(form);
      // The kind decides which amount is sent: a kind that is neither is refused, never read as a percentage.
      if (!KINDS.includes(form.text('kind'))) {
        return { status: 400, data: { values, errors: new FieldErrors([{ field: 'kind', code: 'ENUM', message: 'must be percent or amount' }]) } };
      }
      let made: PromotionCodeView;
      try {
        made = await createPromotionCode({ ...deps, actor }, merchantId, createInput(values), undefined);
      } catch (err) {
        return { status: 400, data: { values, errors: new FieldErrors(refused(err)) } };
      }
      return { seeOther: `${codePath(made.promotionCodeId)}?done=created` };
    });

    route
      .get('/promotion-codes/:promotionCodeId', { permission: 'links.read', view: renderEditCode })
      .handle(async ({ request, merchantId }: Ctx<IdParams & { Querystring: { done?: string } }>) => {
        const code = await getPromotionCode(deps, merchantId, request.params.promotionCodeId);
        const notice = savedNotice(request.query.done);
        return { data: { code, values: storedValues(code), errors: new FieldErrors(), notice, now: deps.clock.now() } };
      });

    route
      .post('/promotion-codes/:promotionCodeId', { permission: 'links.write', view: renderEditCode })
      .handle(async ({ request, merchantId, form, actor }: Ctx<IdParams>) => {
        const id = request.params.promotionCodeId;
        const before = await getPromotionCode(deps, merchantId, id);
        const values = { ...valuesOf(form), code: before.code };
        const typedExpiry = values.expiresAt.trim();
        const input = {
          active: values.active,
          // The stored expiry sent back as shown is no change (an expiry in the past may stay as it is).
          expiresAt: typedExpiry === '' ? null : typedExpiry === localInputOf(before.expiresAt) ? before.expiresAt : timestampOf(typedExpiry),
          maxRedemptions: wholeNumberOf(values.maxRedemptions) ?? null,
        };
        try {
          await updatePromotionCode({ ...deps, actor }, merchantId, id, input);
        } catch (err) {
          return { status: 400, data: { code: before, values, errors: new FieldErrors(refused(err)), notice: null, now: deps.clock.now() } };
        }
        return { seeOther: `${codePath(id)}?done=saved` };
      });
  },
};
