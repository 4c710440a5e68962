import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type FieldError } from '../../errors.js';
import { isLang } from '../../web/lang.js';
import { createTheme, deleteTheme, getTheme, listThemes, previewLook, updateTheme, type Theme, type ThemeInput } from '../../themes/service.js';
import { Form, savedNotice, sendPage, viewFor, type PortalArea, type PortalDeps } from '../http.js';
import { portalRouter, type Ctx } from '../route.js';
import { FieldErrors } from '../view.js';
import { PORTAL } from '../views/layout.js';
import { THEMES_CSS, enhanceThemePreview } from './assets.js';
import { renderThemeDelete } from './deletePage.js';
import { NEW_THEME, renderThemeForm, valuesOf, type ThemeFormValues } from './formPage.js';
import { renderThemeList } from './listPage.js';
import { localized, logoTooLarge } from './messages.js';
import { renderThemePreview } from './previewPage.js';

// Themes in the portal (§The portal: themes): make, change, preview and delete a merchant's own look
// for the payment pages. The rules are the themes module's; these routes read the form, call it,
// and show its field errors beside the fields.

type KeyParams = { Params: { themeKey: string } };

function inputOf(form: Form): ThemeInput {
  const logo = form.file('logo');
  return {
    name: form.text('name').slice(0, 500),
    accentColor: form.text('accentColor'),
    backgroundColor: form.text('backgroundColor'),
    buttonShape: form.text('buttonShape'),
    ...(logo ? { logo } : {}),
  };
}

function formValues(form: Form): ThemeFormValues {
  return {
    name: form.text('name').slice(0, 500),
    accentColor: form.text('accentColor'),
    backgroundColor: form.text('backgroundColor'),
    buttonShape: form.text('buttonShape'),
    removeLogo: form.text('removeLogo') === 'on',
  };
}

/** The field errors of a refused theme, or the error itself when it is anything else. */
function fieldErrorsOf(err: unknown): FieldError[] {
  if (err instanceof ApiError && err.code === 'VALIDATION_FAILED' && err.errors) return [...err.errors];
  throw err;
}

/**
 * The fields a multipart form had sent before its file stopped the upload: the form's text fields
 * come before its file, so what the user typed is shown again beside the error.
 */
function fieldsBeforeFile(body: unknown): Form {
  const fields: Record<string, string> = {};
  if (body !== null && typeof body === 'object') {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      const value = (v as { value?: unknown } | null)?.value;
      if (typeof value === 'string') fields[k] = value;
    }
  }
  return new Form(fields);
}

export const themesArea: PortalArea = {
  styles: THEMES_CSS,
  scripts: [enhanceThemePreview],
  routes(portal, deps: PortalDeps) {
    const { db, clock } = deps;

    const route = portalRouter(portal, deps);

    /**
     * A logo over the limit stops the upload before the form is read (the portal's parser answers
     * 413): the form comes back with the error beside the logo and what had been typed, nothing saved.
     */
    const uploadTooLarge = async (error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      if (error.code !== 'FST_REQ_FILE_TOO_LARGE' || !request.portalSession) throw error;
      const view = await viewFor(request, reply, deps);
      // The edit form names its theme; the new one has none.
      const key = (request.params as { themeKey?: string }).themeKey;
      const theme = key === undefined ? null : await getTheme(db, view.merchant.merchantId, key);
      const form = fieldsBeforeFile(request.body);
      const values = form.has('accentColor') ? formValues(form) : theme ? valuesOf(theme) : NEW_THEME;
      return sendPage(reply, 413, renderThemeForm(view, { theme, values, errors: new FieldErrors([logoTooLarge(view)]), notice: null }));
    };

    route
      .get('/themes', { permission: 'themes.manage', view: renderThemeList })
      .handle(async ({ request, merchantId }: Ctx<{ Querystring: { done?: string } }>) => ({
        data: { themes: await listThemes(db, merchantId), notice: request.query.done === 'deleted' ? 'deleted' : null },
      }));

    route
      .get('/themes/new', { permission: 'themes.manage', view: renderThemeForm })
      .handle(async () => ({ data: { theme: null, values: NEW_THEME, errors: new FieldErrors(), notice: null } }));

    // The live preview's question: the palette these colours make, or why they would be refused.
    route.get('/themes/palette', { permission: 'themes.manage' }).handle(async ({ request, reply, session }: Ctx<{ Querystring: Record<string, unknown> }>) => {
      // A repeated parameter arrives as a list: only a single value is a colour or a shape.
      const q = (name: string): string => {
        const v = request.query[name];
        return typeof v === 'string' ? v : '';
      };
      const look = previewLook({ accentColor: q('accentColor'), backgroundColor: q('backgroundColor'), buttonShape: q('buttonShape') });
      return {
        sent: reply.type('application/json; charset=utf-8').send({
          variables: look.variables,
          errors: localized({ lang: session.language }, look.errors).map((e) => ({ field: e.field, message: e.message })),
        }),
      };
    });

    route
      .post('/themes', { permission: 'themes.manage', view: renderThemeForm, errorHandler: uploadTooLarge })
      .handle(async ({ merchantId, form, view, actor }) => {
        let theme: Theme;
        try {
          theme = await createTheme({ db, clock, actor }, merchantId, inputOf(form));
        } catch (err) {
          const errors = new FieldErrors(localized(await view(), fieldErrorsOf(err)));
          return { status: 400, data: { theme: null, values: formValues(form), errors, notice: null } };
        }
        return { seeOther: `${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}/edit?done=created` };
      });

    route
      .get('/themes/:themeKey/edit', { permission: 'themes.manage', view: renderThemeForm })
      .handle(async ({ request, merchantId }: Ctx<KeyParams & { Querystring: { done?: string } }>) => {
        const theme = await getTheme(db, merchantId, request.params.themeKey);
        const notice = savedNotice(request.query.done);
        return { data: { theme, values: valuesOf(theme), errors: new FieldErrors(), notice } };
      });

    route
      .post('/themes/:themeKey/edit', { permission: 'themes.manage', view: renderThemeForm, errorHandler: uploadTooLarge })
      .handle(async ({ request, merchantId, form, view, actor }: Ctx<KeyParams>) => {
        const input = inputOf(form);
        const logoChange = form.text('removeLogo') === 'on' ? 'remove' : 'keep';
        let result: Awaited<ReturnType<typeof updateTheme>>;
        try {
          result = await updateTheme({ db, clock, actor }, merchantId, request.params.themeKey, { ...input, logoChange });
        } catch (err) {
          const errors = fieldErrorsOf(err);
          const theme = await getTheme(db, merchantId, request.params.themeKey);
          return { status: 400, data: { theme, values: formValues(form), errors: new FieldErrors(localized(await view(), errors)), notice: null } };
        }
        return { seeOther: `${PORTAL}/themes/${encodeURIComponent(result.after.themeKey)}/edit?done=saved` };
      });

    // The whole payment page in the saved theme, with sample data: the preview that needs no script.
    route
      .get('/themes/:themeKey/preview', { permission: 'themes.manage' })
      .handle(async ({ request, merchantId }: Ctx<KeyParams & { Querystring: { lang?: string } }>) => {
        const theme = await getTheme(db, merchantId, request.params.themeKey);
        return { page: (view) => renderThemePreview(isLang(request.query.lang) ? request.query.lang : view.lang, theme, view.merchant.name) };
      });

    route
      .get('/themes/:themeKey/delete', { permission: 'themes.manage', view: renderThemeDelete })
      .handle(async ({ request, merchantId }: Ctx<KeyParams>) => ({ data: await getTheme(db, merchantId, request.params.themeKey) }));

    route.post('/themes/:themeKey/delete', { permission: 'themes.manage' }).handle(async ({ request, merchantId, actor }: Ctx<KeyParams>) => {
      await deleteTheme({ db, clock, actor }, merchantId, request.params.themeKey);
      return { seeOther: `${PORTAL}/themes?done=deleted` };
    });
  },
};
