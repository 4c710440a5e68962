import { formatNumber } from '../../html/format.js';
import type { LinkType } from '../../paymentLinks/schemas.js';
import type { PaymentLinkView } from '../../paymentLinks/service.js';
import type { PaymentSummary } from '../../payments/service.js';
import { translator } from '../i18n.js';
import type { View } from '../view.js';
import { Badge, CopyField, Facts, Money, Time } from '../views/components.js';
import { PORTAL, portalPage } from '../views/layout.js';
import { DataTable, ItemsSection, Td } from '../views/table.js';
import { M } from './messages.js';
import { ChosenItems, PaymentsTable } from '../payments/views.js';
import { CustomFieldsFacts, customFieldLabel } from './customFieldsSection.js';
import { StatusBadge, TYPE_KEY, fieldLabel, linkPath, recurringLabel, requirementLabel } from './labels.js';

// A payment link's page: what it asks for, its settings, and the payments made through it.

export type DetailNotice = 'created' | 'updated' | 'disabled' | null;

export function renderLinkDetail(
  view: View,
  data: { link: PaymentLinkView; payments: readonly PaymentSummary[]; paymentsLimit: number; notice: DetailNotice },
): string {
  const t = translator(M, view.lang);
  const { link } = data;
  const path = linkPath(link.paymentLinkReference);
  const canWrite = view.can('links.write');
  const editable = link.status !== 'Disabled' && link.status !== 'Completed';
  const money = (minor: number) => <Money view={view} minor={minor} currency={link.currency} />;
  const actions = canWrite ? (
    <>
      {editable ? (
        <a class="button secondary" href={`${path}/edit`}>
          {t('edit')}
        </a>
      ) : null}
      {link.status !== 'Disabled' ? (
        <a class="button danger" href={`${path}/disable`}>
          {t('disable')}
        </a>
      ) : null}
    </>
  ) : undefined;
  const notice =
    data.notice === 'created' ? t('createdNotice') : data.notice === 'updated' ? t('updatedNotice') : data.notice === 'disabled' ? t('disabledNotice') : null;
  return portalPage({
    view,
    title: link.description || link.paymentLinkReference,
    section: 'links',
    actions,
    lead: (
      <>
        <StatusBadge t={t} status={link.status} /> {t(TYPE_KEY[link.type as LinkType])}
      </>
    ),
    notice,
    children: (
      <>
        <section class="panel share" aria-labelledby="share-title">
          <h2 id="share-title">{t('share')}</h2>
          <div class="share-body">
            <div>
              <CopyField view={view} label={t('linkAddress')} value={link.url} id="link-url" />
              <p>
                <a href={`${path}/qr.svg?download=1`} download={`paylink-${link.paymentLinkReference}.svg`}>
                  {t('qrDownload')}
                </a>
              </p>
            </div>
            <img class="qr" src={`${path}/qr.svg`} alt={t('qrAlt')} width={160} height={160} />
          </div>
        </section>
        <div class="grid">
          <section class="panel" aria-labelledby="facts-title">
            <h2 id="facts-title">{t('facts')}</h2>
            <Facts
              rows={[
                [view.t('reference'), <span class="mono">{link.paymentLinkReference}</span>],
                link.type === 'PayByLink' ? [view.t('amount'), money(link.amount)] : [view.t('currency'), link.currency],
                [
                  t('salesCount'),
                  link.maxSalesCount === null
                    ? `${formatNumber(link.salesCount, view.lang)} (${t('unlimited')})`
                    : t('salesOf', { sales: formatNumber(link.salesCount, view.lang), max: formatNumber(link.maxSalesCount, view.lang) }),
                ],
                [t('visits'), formatNumber(link.visitCount, view.lang)],
                [view.t('created'), <Time view={view} at={new Date(link.createdAt)} />],
                [t('validUntil'), link.validUntil ? <Time view={view} at={new Date(link.validUntil)} /> : view.t('never')],
                [t('terminalIdentifier'), <span class="mono">{link.terminalIdentifier}</span>],
                [t('culture'), link.culture === 'en' ? t('cultureEn') : t('cultureIs')],
                [t('theme'), link.themeKey ?? t('defaultTheme')],
                [t('returnUrl'), link.returnUrl ? <span class="mono">{link.returnUrl}</span> : '–'],
                link.type === 'TokenizeByLink' ? [t('recurringModel'), recurringLabel(t, link.recurringProcessingModel)] : null,
                [t('completionMessage'), link.completionMessage !== undefined ? <span class="pre-line">{link.completionMessage}</span> : '–'],
                [t('inactiveMessage'), link.inactiveMessage !== undefined ? <span class="pre-line">{link.inactiveMessage}</span> : '–'],
                [t('termsUrl'), link.termsUrl !== undefined ? <span class="mono break">{link.termsUrl}</span> : '–'],
                link.type === 'PayByLink' ? [t('promotionCodes'), link.allowPromotionCodes === true ? t('promotionCodesAllowed') : '–'] : null,
                link.type === 'PayByLink' ? [t('receipts'), link.emailReceipts === false ? t('receiptsOff') : t('receiptsOn')] : null,
              ]}
            />
          </section>
          <section class="panel" aria-labelledby="shopper-title">
            <h2 id="shopper-title">{t('shopperFields')}</h2>
            {link.shopperInfos.length === 0 ? (
              <p class="muted">{t('noShopperFields')}</p>
            ) : (
              <Facts
                rows={link.shopperInfos.map(
                  (s) =>
                    [fieldLabel(t, s.field), `${requirementLabel(t, s.requirementType)}${s.prefilledValue !== null ? `: ${s.prefilledValue}` : ''}`] as const,
                )}
              />
            )}
          </section>
        </div>
        {link.customFields !== undefined ? <CustomFieldsFacts view={view} link={link} /> : null}
        {link.type === 'PayByLink' ? (
          <ItemsSection
            view={view}
            label={t('sectionItems')}
            empty={{ text: t('noItems'), class: 'muted' }}
            currency={link.currency}
            words={{
              item: t('itemName'),
              quantity: t('quantity'),
              unitPrice: t('unitPrice'),
              discount: t('discount'),
              amount: t('lineAmount'),
              total: t('total'),
            }}
            lines={link.items}
            total={link.amount}
          />
        ) : null}
        {link.items.some((i) => i.adjustableQuantity !== undefined) ? (
          <section aria-labelledby="adjustable-title" data-adjustable="">
            <h2 id="adjustable-title">{t('adjustableTitle')}</h2>
            <ul>
              {link.items.map((i) =>
                i.adjustableQuantity ? (
                  <li>
                    {t('adjustableRange', { item: i.name, minimum: String(i.adjustableQuantity.minimum), maximum: String(i.adjustableQuantity.maximum) })}
                  </li>
                ) : null,
              )}
            </ul>
          </section>
        ) : null}
        <section>
          <h2 id="submissions-title">{t('submissions')}</h2>
          <p class="muted small">{t('submissionsLead')}</p>
          <DataTable
            view={view}
            label={t('submissions')}
            columns={[t('answers'), t('completed'), { label: view.t('amount'), num: true }, t('payment')]}
            rows={link.submissions}
            empty={t('noSubmissions')}
            row={(s) => (
              <tr>
                <Td class="wrap">
                  {s.answers.length === 0 && (s.customFieldAnswers ?? []).length === 0 && s.items === undefined ? (
                    <span class="muted">–</span>
                  ) : (
                    <ul class="answers">
                      {s.answers.map((a) => (
                        <li>
                          <span class="muted">{fieldLabel(t, a.field)}:</span> {a.value}
                        </li>
                      ))}
                      {(s.customFieldAnswers ?? []).map((a) => {
                        // Named as the link names the field now; a field since removed by its key.
                        const f = link.customFields?.find((x) => x.key === a.key);
                        return (
                          <li data-custom-answer={a.key}>
                            <span class="muted">{f ? customFieldLabel(f, view.lang) : a.key}:</span> {a.value}
                          </li>
                        );
                      })}
                      {s.items !== undefined ? (
                        <li>
                          <ChosenItems lines={s.items} money={(minor) => <Money view={view} minor={minor} currency={s.currency} />} />
                        </li>
                      ) : null}
                    </ul>
                  )}
                </Td>
                <Td>{s.completed ? <Badge tone="ok">{view.t('yes')}</Badge> : <Badge tone="neutral">{view.t('no')}</Badge>}</Td>
                <Td class="num">
                  <Money view={view} minor={s.amount} currency={s.currency} />
                </Td>
                <Td>
                  {s.payfacReference ? (
                    <a class="mono" href={`${PORTAL}/payments/${encodeURIComponent(s.payfacReference)}`}>
                      {s.payfacReference}
                    </a>
                  ) : (
                    '–'
                  )}
                  {s.token ? (
                    <div class="muted small">
                      {t('savedCard')} <span class="mono break">{s.token}</span>
                    </div>
                  ) : null}
                </Td>
              </tr>
            )}
          />
        </section>
        <section>
          <h2 id="payments-title">{t('payments')}</h2>
          {data.payments.length === 0 ? (
            <p class="empty panel">{t('noPayments')}</p>
          ) : (
            <>
              {data.payments.length >= data.paymentsLimit ? <p class="muted small">{t('paymentsLead', { count: data.paymentsLimit })}</p> : null}
              <PaymentsTable view={view} payments={data.payments} label={t('payments')} />
            </>
          )}
        </section>
      </>
    ),
  });
}
