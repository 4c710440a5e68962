// Render time of the portal's two busiest pages in one process (a profiling aid beside the portal
// bench, which measures the real server): `npm run bench:render`. Twenty rows each, as the pages
// show, with text that needs escaping; warmed up, then 10,000 renders, twice.
import { renderLinkList } from '../src/portal/links/listPage.js';
import { renderPaymentList } from '../src/portal/payments/views.js';
import { FieldErrors, signedInView } from '../src/portal/view.js';
import type { LinkSummary } from '../src/paymentLinks/service.js';
import type { PaymentListItem } from '../src/payments/service.js';

const at = (i: number): Date => new Date(1_764_000_000_000 + i * 60_000);
const view = signedInView(
  { language: 'en', userId: 'u1', email: 'owner@example.com', role: 'owner', expiresAt: at(0) } as Parameters<typeof signedInView>[0],
  'form-token',
  '/portal/links',
  { merchantId: 'm1', name: 'Shop <b>&' },
  [],
);
const links: LinkSummary[] = Array.from({ length: 20 }, (_, i) => ({
  paymentLinkReference: `PL${i.toString(36).padStart(10, 'x')}`,
  description: i % 3 ? `Item ${i} & more` : '',
  amount: 48_900 + i * 100,
  currency: i % 2 ? 'ISK' : 'EUR',
  type: i % 4 ? 'PayByLink' : 'TokenizeByLink',
  status: 'Active',
  salesCount: i,
  maxSalesCount: i % 2 ? null : 10,
  validUntil: null,
  createdAt: at(i),
}));
const payments = Array.from({ length: 20 }, (_, i) => ({
  payfacReference: `PF${i.toString(36).padStart(14, 'y')}`,
  createdAt: at(i),
  success: i % 5 !== 0,
  reason: i % 5 ? null : 'Refused',
  captureState: 'Captured',
  refundedAmount: 0,
  capturedAmount: 48_900,
  amount: 48_900,
  currency: 'ISK',
  paymentMethod: 'visa',
  cardSummary: '4242',
  byToken: false,
  paymentLinkReference: i % 2 ? 'PLx' : null,
  checkoutReference: i % 2 ? null : 'CRx',
  merchantReference: `order-${i}`,
})) as unknown as PaymentListItem[];
const filter = { state: null, from: '', until: '', reference: '' };

const pages: [string, () => string][] = [
  ['links page', () => renderLinkList(view, { kind: 'all', links, page: 0, pageSize: 20, totalCount: 200_000 })],
  ['payments page', () => renderPaymentList({ ...view, here: '/portal/payments' }, { filter, errors: new FieldErrors(), payments, older: 'x', newer: null })],
];
for (let round = 1; round <= 2; round++) {
  for (const [name, render] of pages) {
    for (let i = 0; i < 3_000; i++) render();
    const n = 10_000;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) render();
    const us = Number(process.hrtime.bigint() - start) / n / 1_000;
    console.log(`round ${round}: ${name} ${us.toFixed(1)} µs a render, ${render().length} characters`);
  }
}
