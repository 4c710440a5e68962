-- Deliveries are found by a payment's reference together with those of its captures, refunds and
-- adjustments (src/webhooks/deliveries/sql.ts, listDeliveries): a modification's event carries its
-- own reference and the payment's in additionalData.originalPayfacReference (docs/events.md). This
-- index finds those events by the payment's; the events of other kinds have no such value and leave a
-- NULL entry each.
--
-- A plain CREATE INDEX, not CONCURRENTLY (each migration runs in a transaction): it blocks new events,
-- and so the payments that make them, while it builds, once, as the new version starts.
CREATE INDEX webhook_events_original_payfac_idx ON webhook_events ((message -> 'additionalData' ->> 'originalPayfacReference'));
