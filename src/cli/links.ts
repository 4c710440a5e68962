import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CreatePaymentLinkParams, Item, LinkType, RecurringProcessingModel } from '@paylinks/sdk';
import { action, client, emit, fieldTable, int, paging, table, withClient, type ClientFlags } from './client.js';

// `paylinks links`: create, list, read and disable the merchant's payment links.

/** --item "name:quantity:unitPrice[:amount]" (minor units; amount defaults to quantity × unitPrice). */
function parseItem(value: string, previous: Item[] = []): Item[] {
  const parts = value.split(':');
  const [name, q, p, a] = parts.length > 4 ? [parts.slice(0, -3).join(':'), ...parts.slice(-3)] : parts;
  if (!name || !q || !p || !/^\d+$/.test(q) || !/^\d+$/.test(p) || (a !== undefined && !/^\d+$/.test(a))) {
    throw new InvalidArgumentError('an item is name:quantity:unitPrice[:amount], numbers in minor units');
  }
  const quantity = Number(q);
  const unitPrice = Number(p);
  const amountWithoutDiscount = quantity * unitPrice;
  return [...previous, { name, quantity, unitPrice, amountWithoutDiscount, amount: a !== undefined ? Number(a) : amountWithoutDiscount }];
}

export function registerLinkCommands(program: Command): void {
  // ---------------------------------------------------------------- payment links
  const links = program.command('links').alias('link').description("the merchant's payment links: create, list, read, disable");

  withClient(links.command('create').description('create a payment link; prints its reference and the URL to share'))
    .requiredOption('--terminal <id>', 'terminalIdentifier (12 characters)')
    .requiredOption('--amount <minor>', 'amount in minor units (0 for TokenizeByLink)', int('--amount'))
    .requiredOption('--currency <code>', 'ISO 4217 code, e.g. ISK')
    .addOption(new Option('--type <type>', 'link type').choices(['PayByLink', 'TokenizeByLink']).default('PayByLink'))
    .option('--description <text>', 'description of the link')
    .option('--item <name:quantity:unitPrice[:amount]>', 'an item (repeatable); default one item of the whole amount', parseItem)
    .addOption(new Option('--recurring-processing-model <model>', 'for TokenizeByLink').choices(['CardOnFile', 'Subscription', 'UnscheduledCardOnFile']))
    .option('--return-url <url>', 'where the shopper goes afterwards')
    .option('--expires-at <iso>', 'ISO 8601 UTC expiry')
    .option('--exact-sales-count <n>', 'maximum successful sales', int('--exact-sales-count'))
    .addOption(new Option('--culture <culture>', 'page language').choices(['is', 'en']))
    .option('--completion-message <text>', 'shown on the receipt after a payment (plain text, up to 500 characters)')
    .option('--inactive-message <text>', 'shown on the page once the link is disabled, expired or used up, instead of the usual sentence')
    .option('--terms-url <url>', 'terms the shopper must accept on the payment page before paying')
    .option('--allow-promotion-codes', 'the payment page takes your promotion codes (PayByLink only)')
    .option('--idempotency-key <key>', 'Idempotency-Key: the same key and body within 24 h returns the first answer; default a new one')
    .action(
      action(
        async (
          o: ClientFlags & {
            terminal: string;
            amount: number;
            currency: string;
            type: LinkType;
            description?: string;
            item?: Item[];
            recurringProcessingModel?: RecurringProcessingModel;
            returnUrl?: string;
            expiresAt?: string;
            exactSalesCount?: number;
            culture?: 'is' | 'en';
            completionMessage?: string;
            inactiveMessage?: string;
            termsUrl?: string;
            allowPromotionCodes?: boolean;
            idempotencyKey?: string;
          },
        ) => {
          const items =
            o.item ??
            (o.type === 'PayByLink'
              ? [{ name: o.description || 'Payment', quantity: 1, unitPrice: o.amount, amountWithoutDiscount: o.amount, amount: o.amount }]
              : []);
          const params: CreatePaymentLinkParams = {
            type: o.type,
            terminalIdentifier: o.terminal,
            amount: o.amount,
            currency: o.currency,
            items,
            ...(o.recurringProcessingModel ? { recurringProcessingModel: o.recurringProcessingModel } : {}),
            ...(o.description !== undefined ? { description: o.description } : {}),
            ...(o.returnUrl !== undefined ? { returnUrl: o.returnUrl } : {}),
            ...(o.expiresAt !== undefined ? { expiresAt: o.expiresAt } : {}),
            ...(o.exactSalesCount !== undefined ? { exactSalesCount: o.exactSalesCount } : {}),
            ...(o.culture !== undefined ? { culture: o.culture } : {}),
            ...(o.completionMessage !== undefined ? { completionMessage: o.completionMessage } : {}),
            ...(o.inactiveMessage !== undefined ? { inactiveMessage: o.inactiveMessage } : {}),
            ...(o.termsUrl !== undefined ? { termsUrl: o.termsUrl } : {}),
            ...(o.allowPromotionCodes ? { allowPromotionCodes: true } : {}),
          };
          const r = await client(o).paymentLinks.create(params, o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {});
          emit(o, r, () => [`paymentLinkReference  ${r.paymentLinkReference}`, `url                   ${r.url}`]);
        },
      ),
    );

  withClient(paging(links.command('list').description('list payment links, newest first')))
    .option('--all', 'every page (ignores --page)')
    .action(
      action(async (o: ClientFlags & { page?: number; pageSize?: number; all?: boolean }) => {
        const c = client(o);
        let data;
        let totalCount;
        if (o.all) {
          data = [];
          for await (const e of c.paymentLinks.listAll(o.pageSize !== undefined ? { pageSize: o.pageSize } : {})) data.push(e);
          totalCount = data.length;
        } else {
          ({ data, totalCount } = await c.paymentLinks.list({
            ...(o.page !== undefined ? { page: o.page } : {}),
            ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
          }));
        }
        emit(o, { data, totalCount }, () => [
          ...table(
            ['REFERENCE', 'TYPE', 'AMOUNT', 'CURRENCY', 'CREATED', 'DESCRIPTION'],
            data.map((l) => [l.paymentLinkReference, l.type, l.amount, l.currency, l.createdAt, l.description]),
          ),
          `${data.length} shown of ${totalCount}`,
        ]);
      }),
    );

  withClient(links.command('get').description('a payment link with its status, counts, items and submissions'))
    .argument('<reference>', 'paymentLinkReference')
    .action(
      action(async (reference: string, o: ClientFlags) => {
        const r = await client(o).paymentLinks.get(reference);
        const l = r.paymentLink;
        emit(o, r, () => [
          ...fieldTable(l, [
            'paymentLinkReference',
            'type',
            'status',
            ['amount', `${l.amount} ${l.currency}`],
            'description',
            'url',
            'terminalIdentifier',
            'createdAt',
            'validUntil',
            ['sales', `${l.salesCount}${l.maxSalesCount !== null ? ` of ${l.maxSalesCount}` : ''}`],
            'visitCount',
            'returnUrl',
            // Shown only when the link has them, as the API answers them.
            ...(['completionMessage', 'inactiveMessage', 'termsUrl'] as const).filter((k) => l[k] !== undefined),
            ...(l.allowPromotionCodes ? [['promotionCodes', 'allowed'] as const] : []),
          ]),
          ...(l.items.length > 0
            ? [
                '',
                ...table(
                  ['ITEM', 'QUANTITY', 'UNIT PRICE', 'AMOUNT'],
                  l.items.map((i) => [i.name, i.quantity, i.unitPrice, i.amount]),
                ),
              ]
            : []),
          ...(l.submissions.length > 0
            ? [
                '',
                ...table(
                  ['SUBMISSION', 'COMPLETED', 'AMOUNT', 'PAYFACREFERENCE'],
                  l.submissions.map((s, i) => [i + 1, String(s.completed), `${s.amount} ${s.currency}`, s.payfacReference]),
                ),
              ]
            : []),
        ]);
      }),
    );

  withClient(links.command('disable').description('disable a payment link at once (disabling it again succeeds again)'))
    .argument('<reference>', 'paymentLinkReference')
    .action(
      action(async (reference: string, o: ClientFlags) => {
        const r = await client(o).paymentLinks.disable(reference);
        emit(o, { paymentLinkReference: reference, ...r }, () => [`disabled ${reference}`]);
      }),
    );
}
