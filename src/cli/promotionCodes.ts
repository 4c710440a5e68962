import { InvalidArgumentError, type Command } from 'commander';
import type { CreatePromotionCodeParams, PromotionCode, UpdatePromotionCodeParams } from '@paylinks/sdk';
import { action, client, emit, fieldTable, int, paging, table, withClient, type ClientFlags } from './client.js';

// `paylinks promotion-codes`: the merchant's promotion codes (docs/api.md, Promotion codes), through @paylinks/sdk.

/** What a code takes off, as a person reads it. */
function discountText(c: PromotionCode): string {
  return c.percentOff !== null ? `${c.percentOff} %` : `${c.amountOff ?? 0} ${c.currency ?? ''} (minor units)`;
}

function redemptionsText(c: PromotionCode): string {
  return `${c.redemptionCount}${c.maxRedemptions !== null ? ` of ${c.maxRedemptions}` : ''}`;
}

function codeLines(c: PromotionCode): string[] {
  return fieldTable(c, [
    'promotionCodeId',
    'code',
    ['discount', discountText(c)],
    ['active', String(c.active)],
    ['expiresAt', c.expiresAt ?? 'never'],
    ['redemptions', redemptionsText(c)],
    'createdAt',
  ]);
}

/** --active true|false */
function bool(flag: string): (v: string) => boolean {
  return (v) => {
    if (v === 'true' || v === 'yes') return true;
    if (v === 'false' || v === 'no') return false;
    throw new InvalidArgumentError(`${flag} is true or false`);
  };
}

export function registerPromotionCodeCommands(program: Command): void {
  const codes = program
    .command('promotion-codes')
    .alias('promotion-code')
    .description('promotion codes: a percentage or a fixed amount off the total of links that allow them');

  withClient(codes.command('create').description('make a promotion code; give --percent-off, or --amount-off with --currency'))
    .requiredOption('--code <code>', 'what the shopper types: letters, digits, - and _, up to 40 characters (any case matches)')
    .option('--percent-off <n>', 'a percentage off, 1 to 100', int('--percent-off'))
    .option('--amount-off <minor>', 'a fixed amount off in minor units (ISK ends in 00), with --currency', int('--amount-off'))
    .option('--currency <code>', 'the currency of --amount-off: the code applies to payments in it only')
    .option('--expires-at <iso>', 'ISO 8601 UTC; default never')
    .option('--max-redemptions <n>', 'how many payments may use it; default unlimited', int('--max-redemptions'))
    .option('--inactive', 'make it inactive (shoppers are refused until it is made active)')
    .option('--idempotency-key <key>', 'Idempotency-Key: the same key and body within 24 h returns the first answer; default a new one')
    .action(
      action(
        async (
          o: ClientFlags & {
            code: string;
            percentOff?: number;
            amountOff?: number;
            currency?: string;
            expiresAt?: string;
            maxRedemptions?: number;
            inactive?: boolean;
            idempotencyKey?: string;
          },
        ) => {
          const params: CreatePromotionCodeParams = {
            code: o.code,
            ...(o.percentOff !== undefined ? { percentOff: o.percentOff } : {}),
            ...(o.amountOff !== undefined ? { amountOff: o.amountOff } : {}),
            ...(o.currency !== undefined ? { currency: o.currency.toUpperCase() } : {}),
            ...(o.expiresAt !== undefined ? { expiresAt: o.expiresAt } : {}),
            ...(o.maxRedemptions !== undefined ? { maxRedemptions: o.maxRedemptions } : {}),
            ...(o.inactive ? { active: false } : {}),
          };
          const r = await client(o).promotionCodes.create(params, o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {});
          emit(o, r, () => codeLines(r.promotionCode));
        },
      ),
    );

  withClient(paging(codes.command('list').description('list promotion codes, newest first, with how often each was used'))).action(
    action(async (o: ClientFlags & { page?: number; pageSize?: number }) => {
      const { data, totalCount } = await client(o).promotionCodes.list({
        ...(o.page !== undefined ? { page: o.page } : {}),
        ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
      });
      emit(o, { data, totalCount }, () => [
        ...table(
          ['ID', 'CODE', 'DISCOUNT', 'ACTIVE', 'EXPIRES', 'REDEMPTIONS'],
          data.map((c) => [c.promotionCodeId, c.code, discountText(c), String(c.active), c.expiresAt ?? 'never', redemptionsText(c)]),
        ),
        `${data.length} shown of ${totalCount}`,
      ]);
    }),
  );

  withClient(codes.command('get').description('a promotion code: its discount, expiry, cap and redemptions'))
    .argument('<promotionCodeId>', 'promotionCodeId (promo_…)')
    .action(
      action(async (id: string, o: ClientFlags) => {
        const r = await client(o).promotionCodes.get(id);
        emit(o, r, () => codeLines(r.promotionCode));
      }),
    );

  withClient(codes.command('update').description('change whether a code is active, its expiry or its cap (the code and its discount never change)'))
    .argument('<promotionCodeId>', 'promotionCodeId (promo_…)')
    .option('--active <true|false>', 'active or not', bool('--active'))
    .option('--expires-at <iso>', 'ISO 8601 UTC in the future, or "never"')
    .option('--max-redemptions <n>', 'the cap, not below the redemptions so far, or "none"')
    .action(
      action(async (id: string, o: ClientFlags & { active?: boolean; expiresAt?: string; maxRedemptions?: string }) => {
        let maxRedemptions: number | null | undefined;
        if (o.maxRedemptions === 'none') maxRedemptions = null;
        else if (o.maxRedemptions !== undefined) {
          if (!/^\d+$/.test(o.maxRedemptions)) throw new InvalidArgumentError('--max-redemptions is a whole number or none');
          maxRedemptions = Number(o.maxRedemptions);
        }
        const params: UpdatePromotionCodeParams = {
          ...(o.active !== undefined ? { active: o.active } : {}),
          ...(o.expiresAt !== undefined ? { expiresAt: o.expiresAt === 'never' ? null : o.expiresAt } : {}),
          ...(maxRedemptions !== undefined ? { maxRedemptions } : {}),
        };
        const r = await client(o).promotionCodes.update(id, params);
        emit(o, r, () => codeLines(r.promotionCode));
      }),
    );
}
