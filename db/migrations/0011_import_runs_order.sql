-- Two imports can finish within one millisecond (the clock finished_at is read from): their order
-- in GET /api/import/history was then left to their random ids. `seq` is the order they were
-- recorded in, the tie-break after finished_at.
ALTER TABLE import_runs ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
DROP INDEX import_runs__tenant_id_finished_at;
CREATE INDEX import_runs__tenant_id_finished_at_seq ON import_runs (tenant_id, finished_at DESC, seq DESC);
