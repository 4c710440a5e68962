import type { Command } from 'commander';
import { registerLinkCommands } from './links.js';
import { registerPaymentCommands } from './payments.js';
import { registerWebhookCommands } from './webhooks.js';

// The merchant's operations at a terminal: payment links, adjustments of payments, webhooks, deliveries and the sandbox
// trigger. Tables for people; --json prints the response body as one JSON object for scripts.

export function registerOperations(program: Command): void {
  registerLinkCommands(program);
  registerPaymentCommands(program);
  registerWebhookCommands(program);
}
