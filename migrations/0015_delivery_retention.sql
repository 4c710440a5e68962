-- Retention: finished deliveries (Delivered or Failed) older than the retention period are removed
-- with their attempts by the worker, in small batches, oldest first; this index finds them without
-- reading the rest of the history.
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (updated_at) WHERE state <> 'Pending';
