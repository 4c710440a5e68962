import type { Html } from '../../html/jsx-runtime.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../users/service.js';
import type { Lang } from '../../web/lang.js';
import type { CoreKey } from '../i18n.js';
import type { PublicView, View } from '../view.js';
import { Checkbox, Csrf, Notice, PostButton, Select, Time } from './components.js';
import { PORTAL, portalPage, publicPage } from './layout.js';

// Signing in, one-time links, the account page and the portal's error pages.

export type PasswordProblem = 'required' | 'tooShort' | 'tooLong' | 'sameAsEmail' | 'common' | 'mismatch' | 'wrongCurrent';

const PROBLEM_KEY: Record<PasswordProblem, CoreKey> = {
  required: 'pwRequired',
  tooShort: 'pwTooShort',
  tooLong: 'pwTooLong',
  sameAsEmail: 'pwSameAsEmail',
  common: 'pwCommon',
  mismatch: 'pwMismatch',
  wrongCurrent: 'pwWrongCurrent',
};

function problemText(view: PublicView, p: PasswordProblem): string {
  return view.t(PROBLEM_KEY[p], { min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH });
}

function PasswordError({ id, text }: { id: string; text: string }): Html {
  return (
    <p class="error" id={id}>
      {text}
    </p>
  );
}

/** A password input with its label, its hint and its error, each tied to it. */
function PasswordField(p: {
  name: string;
  label: string;
  autocomplete: 'current-password' | 'new-password';
  error: string | null;
  hint?: string;
  minLength?: number;
}): Html {
  const described = [...(p.hint ? [`${p.name}-hint`] : []), ...(p.error ? [`${p.name}-error`] : [])];
  return (
    <div class="field">
      <label for={p.name}>{p.label}</label>
      <input
        id={p.name}
        name={p.name}
        type="password"
        autocomplete={p.autocomplete}
        required
        minLength={p.minLength}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={described.length > 0 ? described.join(' ') : undefined}
      />
      {p.hint ? (
        <span class="hint" id={`${p.name}-hint`}>
          {p.hint}
        </span>
      ) : null}
      {p.error ? <PasswordError id={`${p.name}-error`} text={p.error} /> : null}
    </div>
  );
}

/** A new password and the same again, each with its error; the first with its hint. */
function NewPassword(p: { view: PublicView; name: string; error: string | null; confirmError: string | null; minLength?: number }): Html {
  const { t } = p.view;
  return (
    <>
      <PasswordField
        name={p.name}
        label={t('newPassword')}
        autocomplete="new-password"
        error={p.error}
        hint={t('newPasswordHint', { min: PASSWORD_MIN_LENGTH })}
        minLength={p.minLength}
      />
      <PasswordField name="confirm" label={t('confirmPassword')} autocomplete="new-password" error={p.confirmError} />
    </>
  );
}

export function renderSignIn(
  view: PublicView,
  s: { email: string; next: string; message: 'failed' | 'throttled' | 'signedOut' | 'ended' | 'locked' | null; retryMinutes?: number },
): string {
  const { t } = view;
  const failed = s.message === 'failed' || s.message === 'throttled';
  return publicPage({
    view,
    title: t('signInTitle'),
    children: (
      <>
        {s.message === 'failed' ? <Notice kind="error">{t('signInFailed')}</Notice> : null}
        {s.message === 'throttled' ? <Notice kind="error">{t('signInThrottled', { minutes: s.retryMinutes ?? 15 })}</Notice> : null}
        {s.message === 'signedOut' ? <Notice>{t('signedOut')}</Notice> : null}
        {s.message === 'ended' ? <Notice kind="warn">{t('sessionEnded')}</Notice> : null}
        {s.message === 'locked' ? <Notice kind="error">{t('signedOutLocked', { minutes: s.retryMinutes ?? 15 })}</Notice> : null}
        <form method="post" action={`${PORTAL}/sign-in`} novalidate>
          <Csrf view={view} />
          <input type="hidden" name="next" value={s.next} />
          <div class="field">
            <label for="email">{t('email')}</label>
            <input id="email" name="email" type="email" autocomplete="username" required value={s.email} aria-invalid={failed ? 'true' : undefined} />
          </div>
          <div class="field">
            <label for="password">{t('password')}</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required aria-invalid={failed ? 'true' : undefined} />
          </div>
          <button type="submit" class="primary wide">
            {t('signIn')}
          </button>
        </form>
        <p class="muted small">{t('signInHelp')}</p>
      </>
    ),
  });
}

export function renderLinkPage(view: PublicView, s: { token: string; email: string; hasPassword: boolean; problem: PasswordProblem | null }): string {
  const { t } = view;
  const choose = !s.hasPassword;
  const intro = choose ? t('linkIntroChoose', { email: s.email }) : t('linkIntroContinue', { email: s.email });
  const pwError = s.problem !== null && s.problem !== 'mismatch' ? problemText(view, s.problem) : null;
  const confirmError = s.problem === 'mismatch' ? problemText(view, s.problem) : null;
  return publicPage({
    view,
    title: t('linkTitleSignIn'),
    children: (
      <>
        <p>{intro}</p>
        <form method="post" action={`${PORTAL}/link/${s.token}`} novalidate>
          <Csrf view={view} />
          <input type="text" name="username" value={s.email} autocomplete="username" hidden readonly />
          {choose ? (
            <>
              <NewPassword view={view} name="password" error={pwError} confirmError={confirmError} minLength={PASSWORD_MIN_LENGTH} />
            </>
          ) : null}
          <button type="submit" class="primary wide">
            {choose ? t('savePassword') : t('linkContinue')}
          </button>
        </form>
      </>
    ),
  });
}

export function renderMessagePage(view: PublicView, title: CoreKey, text: string, opts: { signIn?: boolean } = {}): string {
  return publicPage({
    view,
    title: view.t(title),
    children: (
      <>
        <p>{text}</p>
        {opts.signIn ? (
          <p>
            <a href={`${PORTAL}/sign-in`}>{view.t('signIn')}</a>
          </p>
        ) : (
          <p>
            <a href={PORTAL}>{view.t('portal')}</a>
          </p>
        )}
      </>
    ),
  });
}

/** An error page inside the signed-in frame (404, 403, 409 ...). */
export function renderSignedInMessage(view: View, title: CoreKey, text: string): string {
  return portalPage({
    view,
    title: view.t(title),
    section: '',
    children: (
      <>
        <p>{text}</p>
        <p>
          <a href={PORTAL}>{view.t('navOverview')}</a>
        </p>
      </>
    ),
  });
}

export function renderAccount(
  view: View,
  s: {
    notice: 'saved' | 'passwordChanged' | null;
    problem: PasswordProblem | null;
    /** An owner's choice of the "you were paid" e-mail; null: not an owner. */ paidNotice: boolean | null;
  },
): string {
  const { t } = view;
  const languages: { value: Lang; label: string }[] = [
    { value: 'en', label: 'English' },
    { value: 'is', label: 'Íslenska' },
  ];
  const currentError = s.problem === 'wrongCurrent' ? problemText(view, s.problem) : null;
  const nextError = s.problem !== null && s.problem !== 'wrongCurrent' && s.problem !== 'mismatch' ? problemText(view, s.problem) : null;
  const confirmError = s.problem === 'mismatch' ? problemText(view, s.problem) : null;
  return portalPage({
    view,
    title: t('accountTitle'),
    section: 'account',
    lead: t('signedInAs', { email: view.user.email }),
    notice: s.notice === null ? null : t(s.notice),
    children: (
      <>
        <section class="panel" aria-labelledby="lang-h">
          <h2 id="lang-h">{t('accountLanguage')}</h2>
          <form method="post" action={`${PORTAL}/account/language`} class="row-form">
            <Csrf view={view} />
            <Select view={view} name="language" label={t('language')} options={languages} value={view.lang} />
            <button type="submit" class="primary">
              {t('save')}
            </button>
          </form>
        </section>
        {s.paidNotice !== null ? (
          <section class="panel" aria-labelledby="paid-h">
            <h2 id="paid-h">{t('paidNoticeTitle')}</h2>
            <p class="muted">{t('paidNoticeIntro', { merchant: view.merchant.name })}</p>
            <form method="post" action={`${PORTAL}/account/paid-notice`}>
              <Csrf view={view} />
              <Checkbox name="paidNotice" label={t('paidNoticeLabel', { merchant: view.merchant.name })} checked={s.paidNotice} />
              <button type="submit" class="primary">
                {t('save')}
              </button>
            </form>
          </section>
        ) : null}
        <section class="panel" aria-labelledby="pw-h">
          <h2 id="pw-h">{t('passwordTitle')}</h2>
          <form method="post" action={`${PORTAL}/account/password`} novalidate>
            <Csrf view={view} />
            <input type="text" name="username" value={view.user.email} autocomplete="username" hidden readonly />
            <PasswordField name="current" label={t('currentPassword')} autocomplete="current-password" error={currentError} />
            <NewPassword view={view} name="next" error={nextError} confirmError={confirmError} />
            <button type="submit" class="primary">
              {t('savePassword')}
            </button>
          </form>
        </section>
        <section class="panel" aria-labelledby="merchants-h">
          <h2 id="merchants-h">{t('yourMerchants')}</h2>
          {view.merchants.length > 1 ? (
            <>
              <p class="muted">{t('yourMerchantsIntro')}</p>
              <ul>
                {view.merchants.map((m) => (
                  <li>{m.name}</li>
                ))}
              </ul>
            </>
          ) : (
            <p>{view.merchants[0]?.name ?? view.merchant.name}</p>
          )}
          <p>
            <a href={`${PORTAL}/invitations`}>{t('seeInvitations')}</a>
          </p>
        </section>
        <section class="panel" aria-labelledby="sessions-h">
          <h2 id="sessions-h">{t('sessionsTitle')}</h2>
          <p>
            {t('sessionExpires')} <Time view={view} at={view.sessionExpiresAt} />.
          </p>
          <p class="muted">{t('sessionsIntro')}</p>
          <PostButton view={view} action={`${PORTAL}/account/sign-out-everywhere`} label={t('signOutEverywhere')} kind="danger" />
        </section>
      </>
    ),
  });
}
