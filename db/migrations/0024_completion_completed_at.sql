-- When each completion record was first completed and first passed (docs/completions.md), for
-- what dates a record: an assignment completed after its due date, a competency's evidence.
-- `completed_at` is the earliest `timestamp` of the record's statements that complete the
-- activity (verb completed or passed, or result.completion or result.success true; a completed
-- and failed attempt completes), `passed_at` that of those that pass it (verb passed, or
-- result.success true); NULL when none does. Both are minimums, so the fold keeps them whatever
-- order the statements come in (src/modules/completions/completion-rules.ts).
ALTER TABLE completion_records ADD COLUMN completed_at timestamptz, ADD COLUMN passed_at timestamptz;

-- The records stored before: the same rule over their statements not voided. The timestamp is
-- read as the fold reads it (src/kernel/timestamp.ts), which a plain cast does not: a comma
-- before the fraction (refused by PostgreSQL) is a point, the fraction stops at milliseconds (a
-- cast rounds), and a timestamp without an offset is UTC (a cast takes the session's time zone).
-- `stored` when there is none. completion_record_statements.statement_id is a uuid's text: cast
-- to uuid, the join probes xapi_statements' primary key.
UPDATE completion_records AS r
   SET completed_at = f.completed_at, passed_at = f.passed_at
  FROM (SELECT l.tenant_id, l.agent_key, l.activity_id, l.registration,
               min(o.at) FILTER (WHERE o.completes) AS completed_at,
               min(o.at) FILTER (WHERE o.passes) AS passed_at
          FROM completion_record_statements AS l
          JOIN xapi_statements AS s ON s.tenant_id = l.tenant_id AND s.id = l.statement_id::uuid
         CROSS JOIN LATERAL (
               SELECT s.statement -> 'verb' ->> 'id' AS verb_id, s.statement -> 'result' AS result,
                      regexp_replace(replace(s.statement ->> 'timestamp', ',', '.'), '(\.\d{3})\d+', '\1') AS ts
             ) AS t
         CROSS JOIN LATERAL (
               SELECT COALESCE(
                        (CASE WHEN t.ts ~ '([Zz]|[+-]\d{2}(:?\d{2})?)$' THEN t.ts ELSE t.ts || 'Z' END)::timestamptz,
                        s.stored) AS at,
                      t.verb_id IN ('http://adlnet.gov/expapi/verbs/completed', 'http://adlnet.gov/expapi/verbs/passed')
                        OR t.result -> 'completion' = 'true'::jsonb OR t.result -> 'success' = 'true'::jsonb AS completes,
                      t.verb_id = 'http://adlnet.gov/expapi/verbs/passed' OR t.result -> 'success' = 'true'::jsonb AS passes
             ) AS o
         WHERE NOT s.voided
         GROUP BY l.tenant_id, l.agent_key, l.activity_id, l.registration) AS f
 WHERE r.tenant_id = f.tenant_id AND r.agent_key = f.agent_key AND r.activity_id = f.activity_id
   AND r.registration = f.registration
   AND (f.completed_at IS NOT NULL OR f.passed_at IS NOT NULL);
