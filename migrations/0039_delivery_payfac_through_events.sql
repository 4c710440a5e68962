-- Deliveries are found by payment reference through their event, not by an index of their own. A
-- delivery row is written three times (made, claimed, recorded), and each write adds an entry to every
-- index of the table, where an event is written once for all its webhooks. With the reference's index
-- on the events instead, a delivery adds 13 index entries instead of 16 (docs/performance.md, "Fewer
-- index entries per delivery"). The lookup reads the events by reference, then their deliveries by
-- webhook_deliveries_event_idx.
CREATE INDEX webhook_events_payfac_idx ON webhook_events (payfac_reference);
DROP INDEX webhook_deliveries_payfac_idx;
