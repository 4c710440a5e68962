import type { FieldError } from '../errors.js';
import type { PortalSession, Role } from '../users/service.js';
import { can, type Permission } from './access.js';
import { CORE, translator, type CoreKey, type Lang, type Translate } from './i18n.js';

// What every portal page is rendered with: the reader's language, the signed-in user and merchant,
// the form token, and what the user's role allows (the navigation shows only that).

export interface PublicView {
  lang: Lang;
  t: Translate<CoreKey>;
  /** The CSRF token for the page's forms. */
  csrf: string;
  /** The path and query of this page (the language switch comes back here). */
  here: string;
}

export interface View extends PublicView {
  user: { userId: string; email: string; role: Role };
  merchant: { merchantId: string; name: string };
  /** The merchants the user can switch to, each named with the user's role there (one or none: no switcher). */
  merchants: readonly { merchantId: string; name: string }[];
  can(permission: Permission): boolean;
  /** When this session ends at the latest. */
  sessionExpiresAt: Date;
}

export function publicView(lang: Lang, csrf: string, here: string): PublicView {
  return { lang, t: translator(CORE, lang), csrf, here };
}

export function signedInView(
  session: PortalSession,
  csrf: string,
  here: string,
  merchant: { merchantId: string; name: string },
  merchants: readonly { merchantId: string; name: string }[],
): View {
  return {
    ...publicView(session.language, csrf, here),
    user: { userId: session.userId, email: session.email, role: session.role },
    merchant,
    merchants,
    can: (permission) => can(session.role, permission),
    sessionExpiresAt: session.expiresAt,
  };
}

/** Field errors by the field they name (the API's JSON path, which is also the form field's name). */
export class FieldErrors {
  private readonly byField = new Map<string, FieldError[]>();

  constructor(errors: readonly FieldError[] = []) {
    for (const e of errors) this.add(e);
  }

  add(e: FieldError): void {
    const list = this.byField.get(e.field);
    if (list) list.push(e);
    else this.byField.set(e.field, [e]);
  }

  of(field: string): readonly FieldError[] {
    return this.byField.get(field) ?? [];
  }

  /** Errors of this field or of any field inside it (`items[2]` covers `items[2].amount`). */
  within(prefix: string): readonly FieldError[] {
    const out: FieldError[] = [];
    for (const [field, list] of this.byField) if (field === prefix || field.startsWith(`${prefix}.`) || field.startsWith(`${prefix}[`)) out.push(...list);
    return out;
  }

  get size(): number {
    let n = 0;
    for (const list of this.byField.values()) n += list.length;
    return n;
  }

  all(): FieldError[] {
    return [...this.byField.values()].flat();
  }

  /** Errors whose field is none of these (shown in the summary at the top of the form). */
  except(fields: readonly string[]): FieldError[] {
    return this.all().filter((e) => !fields.some((f) => e.field === f || e.field.startsWith(`${f}.`) || e.field.startsWith(`${f}[`)));
  }
}

/**
 * The sentence shown beside a field: the API's own for English readers (it is the most exact), a
 * translation of its code for Icelandic readers when there is one, else the API's sentence.
 */
export function fieldMessage(view: PublicView, e: FieldError): string {
  if (view.lang === 'en') return e.message;
  const key = `err${e.code}`;
  return key in CORE.is ? view.t(key as CoreKey) : e.message;
}
