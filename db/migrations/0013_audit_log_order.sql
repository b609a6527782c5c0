-- Entries written within one tick of the clock (PGlite's clock_timestamp() can repeat) were
-- ordered by their random ids. `seq` is the order they were written in, the tie-break after `at`.
ALTER TABLE audit_log ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
DROP INDEX audit_log__tenant_id_at;
DROP INDEX audit_log__tenant_id_actor_key_at;
DROP INDEX audit_log__tenant_id_source_at;
CREATE INDEX audit_log__tenant_id_at ON audit_log (tenant_id, at DESC, seq DESC);
CREATE INDEX audit_log__tenant_id_actor_key_at ON audit_log (tenant_id, actor_key, at DESC, seq DESC);
CREATE INDEX audit_log__tenant_id_source_at ON audit_log (tenant_id, source, at DESC, seq DESC);
