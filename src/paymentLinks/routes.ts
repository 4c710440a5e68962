import type { App, AppDeps } from '../app.js';

// Payment Links API (interface.md 4.1–4.5, D4–D9): filled in by the payment links work.
export async function paymentLinkRoutes(_app: App, _deps: AppDeps): Promise<void> {}
