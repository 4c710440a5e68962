import type { Command } from 'commander';
import { registerLinkCommands } from './links.js';
import { registerPaymentCommands } from './payments.js';
import { registerSettlementCommands } from './settlements.js';
import { registerPromotionCodeCommands } from './promotionCodes.js';
import { registerWebhookCommands } from './webhooks.js';

// The merchant's operations at a terminal: payment links, adjustments of payments, settlements, promotion codes, webhooks, deliveries and the sandbox
// trigger. Tables for people; --json prints the response body as one JSON object for scripts.

export function registerOperations(program: Command): void {
  registerLinkCommands(program);
  registerPaymentCommands(program);
  registerSettlementCommands(program);
  registerPromotionCodeCommands(program);
  registerWebhookCommands(program);
}
