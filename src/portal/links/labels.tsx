import type { Html } from '../../html/jsx-runtime.js';
import type { RECURRING_MODELS, REQUIREMENT_TYPES } from '../../paymentLinks/schemas.js';
import { LINK_STATUSES, type LinkStatus, type LinkType } from '../../paymentLinks/schemas.js';
import type { Translate } from '../i18n.js';
import { Badge } from '../views/components.js';
import { PORTAL } from '../views/layout.js';
import type { ShopperEntry } from './form.js';
import type { LinkKey } from './messages.js';

// What the payment link pages share: the labels of a link's status, type, recurring model and
// shopper fields, its status badge, and the path of its page.

export type T = Translate<LinkKey>;

export const STATUS_KEY = {
  Active: 'statusActive',
  Expired: 'statusExpired',
  Used: 'statusUsed',
  Disabled: 'statusDisabled',
  Completed: 'statusCompleted',
} as const satisfies Record<LinkStatus, LinkKey>;
export const STATUS_TONE = { Active: 'ok', Expired: 'warn', Used: 'neutral', Disabled: 'bad', Completed: 'info' } as const satisfies Record<LinkStatus, string>;
export const TYPE_KEY = { PayByLink: 'typePayByLink', TokenizeByLink: 'typeTokenizeByLink' } as const satisfies Record<LinkType, LinkKey>;
export const RECURRING_KEY = {
  CardOnFile: 'recurringCardOnFile',
  Subscription: 'recurringSubscription',
  UnscheduledCardOnFile: 'recurringUnscheduledCardOnFile',
} as const satisfies Record<(typeof RECURRING_MODELS)[number], LinkKey>;
export const REQUIREMENT_KEY = { Hidden: 'reqHidden', Optional: 'reqOptional', Required: 'reqRequired', Prefilled: 'reqPrefilled' } as const satisfies Record<
  (typeof REQUIREMENT_TYPES)[number],
  LinkKey
>;
const FIELD_KEY = {
  Ssn: 'fieldSsn',
  FullName: 'fieldFullName',
  Address: 'fieldAddress',
  PostCode: 'fieldPostCode',
  City: 'fieldCity',
  Country: 'fieldCountry',
  Telephone: 'fieldTelephone',
  EmailAddress: 'fieldEmailAddress',
  Comments: 'fieldComments',
} as const satisfies Record<ShopperEntry['field'], LinkKey>;

export const linkPath = (reference: string): string => `${PORTAL}/links/${encodeURIComponent(reference)}`;

export function StatusBadge({ t, status }: { t: T; status: string }): Html {
  const s = (LINK_STATUSES as readonly string[]).includes(status) ? (status as LinkStatus) : 'Active';
  return <Badge tone={STATUS_TONE[s]}>{t(STATUS_KEY[s])}</Badge>;
}

export const recurringLabel = (t: T, model: string | null): string =>
  model !== null && model in RECURRING_KEY ? t(RECURRING_KEY[model as keyof typeof RECURRING_KEY]) : (model ?? '–');
export const fieldLabel = (t: T, field: string): string => (field in FIELD_KEY ? t(FIELD_KEY[field as keyof typeof FIELD_KEY]) : field);
export const requirementLabel = (t: T, r: string): string => (r in REQUIREMENT_KEY ? t(REQUIREMENT_KEY[r as keyof typeof REQUIREMENT_KEY]) : r);
