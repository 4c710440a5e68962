import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CreatePaymentLinkParams, CustomFieldParams, Item, LinkType, PaymentLinkListEntry, RecurringProcessingModel } from '@paylinks/sdk';
import { action, client, emit, fieldTable, given, idCommand, int, listCommand, pageOf, table, withClient, type ClientFlags, type PageFlags } from './client.js';

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

/** --custom-field '{"key":"size","type":"Dropdown","label":"Stærð","required":true,"options":["S","M"]}': one field as the API takes it; the service checks it. */
function parseCustomField(value: string, previous: CustomFieldParams[] = []): CustomFieldParams[] {
  let field: unknown;
  try {
    field = JSON.parse(value);
  } catch {
    field = undefined;
  }
  if (typeof field !== 'object' || field === null || Array.isArray(field)) {
    throw new InvalidArgumentError(
      'a custom field is a JSON object, e.g. \'{"key":"size","type":"Dropdown","label":"Stærð","required":true,"options":["S","M"]}\'',
    );
  }
  return [...previous, field as CustomFieldParams];
}

/** A custom field in one line of `links get`. */
function customFieldLine(f: { type: string; label: string; labelEn?: string; required: boolean; maxLength?: number; options?: string[] }): string {
  const parts = [f.type, f.required ? 'required' : 'optional', f.labelEn !== undefined ? `${f.label} / ${f.labelEn}` : f.label];
  if (f.maxLength !== undefined) parts.push(`at most ${f.maxLength} characters`);
  if (f.options !== undefined) parts.push(`options: ${f.options.join(' | ')}`);
  return parts.join(', ');
}

/** --adjustable-quantity "item:minimum:maximum": the item's position among the --item options (from 1), and the shopper's range. */
interface Range {
  item: number;
  minimum: number;
  maximum: number;
}

function parseRange(value: string, previous: Range[] = []): Range[] {
  const m = /^(\d{1,3}):(\d{1,2}):(\d{1,2})$/.exec(value);
  if (!m || Number(m[1]) < 1) throw new InvalidArgumentError('a range is item:minimum:maximum, the item counted from 1 in the order of --item');
  return [...previous, { item: Number(m[1]), minimum: Number(m[2]), maximum: Number(m[3]) }];
}

/** The items with the shopper's ranges put on them; the service checks the ranges themselves. */
function withRanges(items: Item[], ranges: readonly Range[]): Item[] {
  for (const r of ranges) {
    if (r.item > items.length) throw new InvalidArgumentError(`--adjustable-quantity names item ${r.item}, but there are ${items.length}`);
  }
  return items.map((item, i) => {
    const range = ranges.find((r) => r.item === i + 1);
    return range ? { ...item, adjustableQuantity: { minimum: range.minimum, maximum: range.maximum } } : item;
  });
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
    .option(
      '--adjustable-quantity <item:minimum:maximum>',
      'let the shopper choose the quantity of an item (counted from 1) from minimum to maximum (0 to 99) on the payment page (repeatable)',
      parseRange,
    )
    .addOption(new Option('--recurring-processing-model <model>', 'for TokenizeByLink').choices(['CardOnFile', 'Subscription', 'UnscheduledCardOnFile']))
    .option('--return-url <url>', 'where the shopper goes afterwards')
    .option('--expires-at <iso>', 'ISO 8601 UTC expiry')
    .option('--exact-sales-count <n>', 'maximum successful sales', int('--exact-sales-count'))
    .addOption(new Option('--culture <culture>', 'page language').choices(['is', 'en']))
    .option('--completion-message <text>', 'shown on the receipt after a payment (plain text, up to 500 characters)')
    .option('--inactive-message <text>', 'shown on the page once the link is disabled, expired or used up, instead of the usual sentence')
    .option('--terms-url <url>', 'terms the shopper must accept on the payment page before paying')
    .option(
      '--custom-field <json>',
      'a question on the payment page (repeatable, up to 3), as a JSON object: key, type (Text, Number or Dropdown), label, labelEn, required, maxLength (Text), options (Dropdown)',
      parseCustomField,
    )
    .option('--allow-promotion-codes', 'the payment page takes your promotion codes (PayByLink only)')
    .option('--no-email-receipts', 'the payment page e-mails the shopper no receipt (by default it sends one to the address they give)')
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
            adjustableQuantity?: Range[];
            recurringProcessingModel?: RecurringProcessingModel;
            returnUrl?: string;
            expiresAt?: string;
            exactSalesCount?: number;
            culture?: 'is' | 'en';
            completionMessage?: string;
            inactiveMessage?: string;
            termsUrl?: string;
            customField?: CustomFieldParams[];
            allowPromotionCodes?: boolean;
            emailReceipts?: boolean;
            idempotencyKey?: string;
          },
        ) => {
          const items = withRanges(
            o.item ??
              (o.type === 'PayByLink'
                ? [{ name: o.description || 'Payment', quantity: 1, unitPrice: o.amount, amountWithoutDiscount: o.amount, amount: o.amount }]
                : []),
            o.adjustableQuantity ?? [],
          );
          const params: CreatePaymentLinkParams = {
            type: o.type,
            terminalIdentifier: o.terminal,
            amount: o.amount,
            currency: o.currency,
            items,
            ...given({
              recurringProcessingModel: o.recurringProcessingModel,
              description: o.description,
              returnUrl: o.returnUrl,
              expiresAt: o.expiresAt,
              exactSalesCount: o.exactSalesCount,
              culture: o.culture,
              completionMessage: o.completionMessage,
              inactiveMessage: o.inactiveMessage,
              termsUrl: o.termsUrl,
              customFields: o.customField,
              allowPromotionCodes: o.allowPromotionCodes ? true : undefined,
              emailReceipts: o.emailReceipts === false ? false : undefined,
            }),
          };
          const r = await client(o).paymentLinks.create(params, o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {});
          emit(o, r, () => [`paymentLinkReference  ${r.paymentLinkReference}`, `url                   ${r.url}`]);
        },
      ),
    );

  listCommand(links.command('list').description('list payment links, newest first'), {
    options: (cmd) => cmd.option('--all', 'every page (ignores --page)'),
    columns: ['REFERENCE', 'TYPE', 'AMOUNT', 'CURRENCY', 'CREATED', 'DESCRIPTION'],
    row: (l: PaymentLinkListEntry) => [l.paymentLinkReference, l.type, l.amount, l.currency, l.createdAt, l.description],
    list: async (o: ClientFlags & PageFlags & { all?: boolean }) => {
      const c = client(o);
      if (!o.all) {
        const { data, totalCount } = await c.paymentLinks.list(pageOf(o));
        return { data, totalCount };
      }
      const data: PaymentLinkListEntry[] = [];
      for await (const e of c.paymentLinks.listAll(given({ pageSize: o.pageSize }))) data.push(e);
      return { data, totalCount: data.length };
    },
  });

  idCommand(links.command('get').description('a payment link with its status, counts, items and submissions'), ['<reference>', 'paymentLinkReference'], {
    run: (reference, o) => client(o).paymentLinks.get(reference),
    lines: ({ paymentLink: l }) => [
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
        ...(l.emailReceipts === false ? [['receipts', 'not e-mailed'] as const] : []),
      ]),
      ...(l.items.length > 0
        ? [
            '',
            // The shopper's range in a column of its own, only when an item has one.
            ...(l.items.some((i) => i.adjustableQuantity)
              ? table(
                  ['ITEM', 'QUANTITY', 'UNIT PRICE', 'AMOUNT', 'SHOPPER CHOOSES'],
                  l.items.map((i) => [
                    i.name,
                    i.quantity,
                    i.unitPrice,
                    i.amount,
                    i.adjustableQuantity ? `${i.adjustableQuantity.minimum}-${i.adjustableQuantity.maximum}` : '',
                  ]),
                )
              : table(
                  ['ITEM', 'QUANTITY', 'UNIT PRICE', 'AMOUNT'],
                  l.items.map((i) => [i.name, i.quantity, i.unitPrice, i.amount]),
                )),
          ]
        : []),
      // Shown only when the link has them, as the API answers them.
      ...(l.customFields !== undefined
        ? [
            '',
            ...table(
              ['CUSTOM FIELD', 'ASKS'],
              l.customFields.map((f) => [f.key, customFieldLine(f)]),
            ),
          ]
        : []),
      ...(l.submissions.length > 0
        ? [
            '',
            ...table(
              ['SUBMISSION', 'COMPLETED', 'AMOUNT', 'PAYFACREFERENCE', ...(l.customFields !== undefined ? ['ANSWERS'] : [])],
              l.submissions.map((s, i) => [
                i + 1,
                String(s.completed),
                `${s.amount} ${s.currency}`,
                s.payfacReference,
                ...(l.customFields !== undefined ? [(s.customFieldAnswers ?? []).map((a) => `${a.key}=${a.value}`).join('; ')] : []),
              ]),
            ),
          ]
        : []),
    ],
  });

  idCommand(
    links.command('disable').description('disable a payment link at once (disabling it again succeeds again)'),
    ['<reference>', 'paymentLinkReference'],
    {
      run: (reference, o) => client(o).paymentLinks.disable(reference),
      json: (r, reference) => ({ paymentLinkReference: reference, ...r }),
      lines: (_r, reference) => [`disabled ${reference}`],
    },
  );
}
