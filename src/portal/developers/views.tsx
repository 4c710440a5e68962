import type { Html } from '../../html/jsx-runtime.js';
import { CAPABILITIES, type Capability, type KeySummary } from '../../accounts/service.js';
import { formatDate } from '../../html/format.js';
import { translator, type Translate } from '../i18n.js';
import { fieldMessage, type FieldErrors, type View } from '../view.js';
import { Badge, CheckGroup, CopyField, Csrf, ErrorSummary, Facts, Notice, PostButton, Time, fieldId } from '../views/components.js';
import { ConfirmForm } from '../views/confirm.js';
import { DataTable, Td } from '../views/table.js';
import { PORTAL, portalPage, panelPage } from '../views/layout.js';
import { M } from './messages.js';

// The developers' page (§Authentication): API keys (made with chosen capabilities and shown once,
// listed by their display form and last use, revoked after a confirmation), terminals with their
// identifiers to copy, and the browser origins allowed to create.

type Key = keyof typeof M.en;
type T = Translate<Key>;

const SECTION = 'developers';
export const DEVELOPERS = `${PORTAL}/developers`;
const at = (iso: string | null): Date | null => (iso === null ? null : new Date(iso));

export type DevelopersNotice = 'keyRevoked' | 'terminalAdded' | 'originsSaved';

export interface KeyForm {
  capabilities: readonly string[];
  errors: FieldErrors;
  /** What the signed-in user's role may give a key (src/portal/access.ts): the only boxes offered. */
  allowed: readonly Capability[];
}

export interface OriginsForm {
  /** The textarea's text, as typed. */
  text: string;
  /** The origins sent to the service (the non-empty lines), which `allowedOrigins[i]` errors name. */
  sent: readonly string[];
  errors: FieldErrors;
}

function KeyName({ t, k }: { t: T; k: KeySummary }): Html {
  return k.display ? <span class="mono nowrap">{k.display}</span> : <span class="muted">{t('olderKey')}</span>;
}

function Keys({ view, t, keys }: { view: View; t: T; keys: readonly KeySummary[] }): Html {
  return (
    <DataTable
      view={view}
      label={t('keysLabel')}
      columns={[t('key'), t('capabilities'), view.t('created'), t('lastUsed'), view.t('status'), { label: view.t('actions'), hidden: true }]}
      rows={keys}
      empty={t('noKeys')}
      emptyClass="muted"
      row={(k) => (
        <tr>
          <Td>
            <KeyName t={t} k={k} />
          </Td>
          <Td>{k.capabilities.join(', ')}</Td>
          <Td>
            <Time view={view} at={at(k.createdAt)} />
          </Td>
          <Td>{k.lastUsedAt ? <Time view={view} at={at(k.lastUsedAt)} /> : <span class="muted">{view.t('never')}</span>}</Td>
          <Td>
            {k.revokedAt ? (
              <span>
                <Badge tone="neutral">{t('revoked')}</Badge> <Time view={view} at={at(k.revokedAt)} />
              </span>
            ) : (
              <Badge tone="ok">{t('active')}</Badge>
            )}
          </Td>
          <Td>
            {k.revokedAt ? null : (
              <a
                class="button danger small"
                href={`${DEVELOPERS}/keys/${encodeURIComponent(k.keyId)}/revoke`}
                aria-label={t('revokeKeyLabel', { key: k.display ?? k.keyId })}
              >
                {t('revoke')}
              </a>
            )}
          </Td>
        </tr>
      )}
    />
  );
}

function NewKey({ view, t, form }: { view: View; t: T; form: KeyForm }): Html {
  const options = CAPABILITIES.filter((c) => form.allowed.includes(c)).map((c) => ({ value: c, label: c, hint: t(`cap${c}`) }));
  const limited = form.allowed.length < CAPABILITIES.length;
  return (
    // The fragment brings a refused form back into view: the answer is this page again, scrolled to it.
    <form method="post" action={`${DEVELOPERS}/keys#keys`} novalidate>
      <Csrf view={view} />
      <h3>{t('newKeyTitle')}</h3>
      <ErrorSummary view={view} errors={form.errors} shownFields={['capabilities']} />
      <CheckGroup
        view={view}
        name="capabilities"
        legend={t('capabilities')}
        hint={limited ? `${t('capabilitiesHint')} ${t('capabilitiesOfRole')}` : t('capabilitiesHint')}
        options={options}
        chosen={form.capabilities}
        errors={form.errors}
      />
      <button type="submit" class="primary">
        {t('createKey')}
      </button>
    </form>
  );
}

function Terminals({ view, t, terminals }: { view: View; t: T; terminals: readonly { terminalIdentifier: string; createdAt: Date }[] }): Html {
  return (
    <>
      {terminals.length === 0 ? <p class="muted">{t('noTerminals')}</p> : null}
      {terminals.map((x) => (
        <CopyField
          view={view}
          label={t('terminalLabel', { date: formatDate(x.createdAt, view.lang, true) })}
          value={x.terminalIdentifier}
          id={`terminal-${x.terminalIdentifier}`}
        />
      ))}
      <PostButton view={view} action={`${DEVELOPERS}/terminals`} label={t('addTerminal')} />
    </>
  );
}

/** The origins, one per line; each refused line's error is shown with the line itself. */
function Origins({ view, t, form }: { view: View; t: T; form: OriginsForm }): Html {
  const id = fieldId('allowedOrigins');
  const problems = form.errors.within('allowedOrigins');
  const described = [`${id}-hint`, ...(problems.length > 0 ? [`${id}-error`] : [])].join(' ');
  const lineOf = (field: string): string | null => {
    const m = /^allowedOrigins\[(\d+)\]$/.exec(field);
    return m ? (form.sent[Number(m[1])] ?? null) : null;
  };
  return (
    <form method="post" action={`${DEVELOPERS}/origins#origins`} novalidate>
      <Csrf view={view} />
      <ErrorSummary view={view} errors={form.errors} shownFields={['allowedOrigins']} />
      <div class="field">
        <label for={id}>{t('originsLabel')}</label>
        <textarea
          id={id}
          name="allowedOrigins"
          rows={4}
          class="mono"
          spellcheck={false}
          autocomplete="off"
          aria-invalid={problems.length > 0 ? 'true' : undefined}
          aria-describedby={described}
        >
          {form.text}
        </textarea>
        <span class="hint" id={`${id}-hint`}>
          {t('originsHint')}
        </span>
        {problems.length > 0 ? (
          <ul class="error" id={`${id}-error`}>
            {problems.map((e) => {
              const line = lineOf(e.field);
              return (
                <li>
                  {line !== null ? <code>{line}</code> : null}
                  {line !== null ? ': ' : null}
                  {fieldMessage(view, e)}
                </li>
              );
            })}
          </ul>
        ) : null}
      </div>
      <button type="submit" class="primary">
        {t('saveOrigins')}
      </button>
    </form>
  );
}

export function renderDevelopers(
  view: View,
  s: {
    keys: readonly KeySummary[];
    terminals: readonly { terminalIdentifier: string; createdAt: Date }[];
    keyForm: KeyForm;
    origins: OriginsForm;
    notice: DevelopersNotice | null;
  },
): string {
  const t = translator(M, view.lang);
  return portalPage({
    view,
    title: view.t('navDevelopers'),
    section: SECTION,
    lead: t('lead'),
    notice: s.notice ? t(s.notice) : null,
    children: (
      <>
        <section class="panel" id="keys" aria-labelledby="keys-h">
          <h2 id="keys-h">{t('keysTitle')}</h2>
          <p class="muted">{t('keysIntro')}</p>
          <Keys view={view} t={t} keys={s.keys} />
          <p class="muted small">{t('lastUsedNote')}</p>
          <NewKey view={view} t={t} form={s.keyForm} />
        </section>
        <section class="panel" id="terminals" aria-labelledby="terminals-h">
          <h2 id="terminals-h">{t('terminalsTitle')}</h2>
          <p class="muted">{t('terminalsIntro')}</p>
          <Terminals view={view} t={t} terminals={s.terminals} />
        </section>
        <section class="panel" id="origins" aria-labelledby="origins-h">
          <h2 id="origins-h">{t('originsTitle')}</h2>
          <p class="muted">{t('originsIntro')}</p>
          <Origins view={view} t={t} form={s.origins} />
        </section>
      </>
    ),
  });
}

export function renderKeyCreated(view: View, s: { apiKey: string; capabilities: readonly string[] }): string {
  const t = translator(M, view.lang);
  return panelPage(
    { view, title: t('keyCreatedTitle'), section: SECTION },
    <>
      <Notice kind="warn">
        <strong>{view.t('shownOnce')}</strong> {t('keyCreatedIntro')}
      </Notice>
      <CopyField view={view} label={t('apiKey')} value={s.apiKey} id="new-api-key" secret />
      <Facts rows={[[t('capabilities'), s.capabilities.join(', ')]]} />
      <p>
        <a class="button secondary" href={`${DEVELOPERS}#keys`}>
          {t('backToDevelopers')}
        </a>
      </p>
    </>,
  );
}

export function renderRevokeKey(view: View, s: { key: KeySummary }): string {
  const t = translator(M, view.lang);
  const k = s.key;
  return panelPage(
    { view, title: t('revokeTitle'), section: SECTION },
    <>
      <Facts
        rows={[
          [t('key'), <KeyName t={t} k={k} />],
          [t('capabilities'), k.capabilities.join(', ')],
          [view.t('created'), <Time view={view} at={at(k.createdAt)} />],
          [t('lastUsed'), k.lastUsedAt ? <Time view={view} at={at(k.lastUsedAt)} /> : view.t('never')],
        ]}
      />
      {k.revokedAt ? (
        <>
          <Notice kind="warn">{t('alreadyRevoked')}</Notice>
          <a href={`${DEVELOPERS}#keys`}>{t('backToDevelopers')}</a>
        </>
      ) : (
        <>
          <p>{t('revokeIntro')}</p>
          <ConfirmForm
            view={view}
            action={`${DEVELOPERS}/keys/${encodeURIComponent(k.keyId)}/revoke`}
            question={t('revokeConfirm')}
            button={t('revokeButton')}
            back={`${DEVELOPERS}#keys`}
          />
        </>
      )}
    </>,
  );
}

/** The area's own style rules: the origins' list of refused lines. */
export const DEVELOPER_STYLES = `
ul.error { margin: .25rem 0 0; padding-left: 1.2rem; }
.nowrap { white-space: nowrap; }
textarea.mono { font-size: .9rem; }
`;
