import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type FieldError } from '../../errors.js';
import { isLang } from '../../web/lang.js';
import { createTheme, deleteTheme, getTheme, listThemes, previewLook, updateTheme, type Theme, type ThemeInput } from '../../themes/service.js';
import { auditFor, Form, formOf, seeOther, sendPage, sessionOfRequest, viewFor, type PortalArea, type PortalDeps } from '../http.js';
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

const manage = { config: { portal: { permission: 'themes.manage' as const } }, schema: { hide: true } };

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

/** Changed fields of an edit, for the audit log (names only: the values are in the theme). */
function changes(before: Theme, after: Theme, logo: 'kept' | 'replaced' | 'removed'): string[] {
  const fields = (['name', 'accentColor', 'backgroundColor', 'buttonShape'] as const).filter((k) => before[k] !== after[k]);
  return logo === 'kept' ? fields : [...fields, logo === 'replaced' ? 'logo' : 'logo removed'];
}

export const themesArea: PortalArea = {
  styles: THEMES_CSS,
  scripts: [enhanceThemePreview],
  routes(portal, deps: PortalDeps) {
    const { db, clock } = deps;

    const audit = auditFor(deps);

    /**
     * A logo over the limit stops the upload before the form is read (the portal's parser answers
     * 413): the form comes back with the error beside the logo and what had been typed, nothing saved.
     */
    const uploadTooLarge = async (error: FastifyError, request: FastifyRequest<KeyParams>, reply: FastifyReply): Promise<FastifyReply> => {
      if (error.code !== 'FST_REQ_FILE_TOO_LARGE' || !request.portalSession) throw error;
      const view = await viewFor(request, reply, deps);
      const key = request.params.themeKey;
      const theme = key === undefined ? null : await getTheme(db, view.merchant.merchantId, key);
      const form = fieldsBeforeFile(request.body);
      const values = form.has('accentColor') ? formValues(form) : theme ? valuesOf(theme) : NEW_THEME;
      return sendPage(reply, 413, renderThemeForm(view, { theme, values, errors: new FieldErrors([logoTooLarge(view)]), notice: null }));
    };

    portal.get<{ Querystring: { done?: string } }>('/themes', manage, async (request, reply) => {
      const view = await viewFor(request, reply, deps);
      const themes = await listThemes(db, view.merchant.merchantId);
      return sendPage(reply, 200, renderThemeList(view, { themes, notice: request.query.done === 'deleted' ? 'deleted' : null }));
    });

    portal.get('/themes/new', manage, async (request, reply) => {
      const view = await viewFor(request, reply, deps);
      return sendPage(reply, 200, renderThemeForm(view, { theme: null, values: NEW_THEME, errors: new FieldErrors(), notice: null }));
    });

    // The live preview's question: the palette these colours make, or why they would be refused.
    portal.get<{ Querystring: Record<string, unknown> }>('/themes/palette', manage, async (request, reply) => {
      // A repeated parameter arrives as a list: only a single value is a colour or a shape.
      const q = (name: string): string => {
        const v = request.query[name];
        return typeof v === 'string' ? v : '';
      };
      const look = previewLook({ accentColor: q('accentColor'), backgroundColor: q('backgroundColor'), buttonShape: q('buttonShape') });
      const lang = request.portalSession?.language ?? 'en';
      return reply.type('application/json; charset=utf-8').send({
        variables: look.variables,
        errors: localized({ lang }, look.errors).map((e) => ({ field: e.field, message: e.message })),
      });
    });

    portal.post('/themes', { ...manage, errorHandler: uploadTooLarge }, async (request, reply) => {
      const merchantId = sessionOfRequest(request).merchantId;
      const form = formOf(request);
      let theme: Theme;
      try {
        theme = await createTheme(db, clock, merchantId, inputOf(form));
      } catch (err) {
        const view = await viewFor(request, reply, deps);
        const errors = new FieldErrors(localized(view, fieldErrorsOf(err)));
        return sendPage(reply, 400, renderThemeForm(view, { theme: null, values: formValues(form), errors, notice: null }));
      }
      await audit(request, 'theme.create', theme.themeKey, { name: theme.name });
      return seeOther(reply, `${PORTAL}/themes/${encodeURIComponent(theme.themeKey)}/edit?done=created`);
    });

    portal.get<KeyParams & { Querystring: { done?: string } }>('/themes/:themeKey/edit', manage, async (request, reply) => {
      const view = await viewFor(request, reply, deps);
      const theme = await getTheme(db, view.merchant.merchantId, request.params.themeKey);
      const done = request.query.done;
      const notice = done === 'created' || done === 'saved' ? done : null;
      return sendPage(reply, 200, renderThemeForm(view, { theme, values: valuesOf(theme), errors: new FieldErrors(), notice }));
    });

    portal.post<KeyParams>('/themes/:themeKey/edit', { ...manage, errorHandler: uploadTooLarge }, async (request, reply) => {
      const merchantId = sessionOfRequest(request).merchantId;
      const form = formOf(request);
      const input = inputOf(form);
      const logoChange = form.text('removeLogo') === 'on' ? 'remove' : 'keep';
      let result: Awaited<ReturnType<typeof updateTheme>>;
      try {
        result = await updateTheme(db, clock, merchantId, request.params.themeKey, { ...input, logoChange });
      } catch (err) {
        const errors = fieldErrorsOf(err);
        const view = await viewFor(request, reply, deps);
        const theme = await getTheme(db, merchantId, request.params.themeKey);
        return sendPage(reply, 400, renderThemeForm(view, { theme, values: formValues(form), errors: new FieldErrors(localized(view, errors)), notice: null }));
      }
      const { before, after } = result;
      const logo = input.logo ? 'replaced' : before.logoType !== null && after.logoType === null ? 'removed' : 'kept';
      await audit(request, 'theme.update', after.themeKey, { name: after.name, changed: changes(before, after, logo) });
      return seeOther(reply, `${PORTAL}/themes/${encodeURIComponent(after.themeKey)}/edit?done=saved`);
    });

    // The whole payment page in the saved theme, with sample data: the preview that needs no script.
    portal.get<KeyParams & { Querystring: { lang?: string } }>('/themes/:themeKey/preview', manage, async (request, reply) => {
      const view = await viewFor(request, reply, deps);
      const theme = await getTheme(db, view.merchant.merchantId, request.params.themeKey);
      return sendPage(reply, 200, renderThemePreview(isLang(request.query.lang) ? request.query.lang : view.lang, theme, view.merchant.name));
    });

    portal.get<KeyParams>('/themes/:themeKey/delete', manage, async (request, reply) => {
      const view = await viewFor(request, reply, deps);
      const theme = await getTheme(db, view.merchant.merchantId, request.params.themeKey);
      return sendPage(reply, 200, renderThemeDelete(view, theme));
    });

    portal.post<KeyParams>('/themes/:themeKey/delete', manage, async (request, reply) => {
      const theme = await deleteTheme(db, sessionOfRequest(request).merchantId, request.params.themeKey);
      await audit(request, 'theme.delete', theme.themeKey, { name: theme.name });
      return seeOther(reply, `${PORTAL}/themes?done=deleted`);
    });
  },
};
