-- What statement lists are found by, in the order they are answered (issue 15, "scale of the
-- statement queries"; docs/xapi-statements.md, "How lists are found").
--
-- Until now a filtered list matched the filter in xapi_statement_agents / _activities or in
-- xapi_statements' own columns, then followed StatementRefs recursively (a statement targeting
-- a match matches too, xAPI 2.0 Part 3 §2.1.3.s3) and sorted what it found by `stored`. The
-- recursive step hid the row counts from the planner: after a bulk load, before the statistics
-- caught up, one `agent` query with limit=10 took 280 ms.
--
-- Now every filter value of a statement is one row here, carrying the statement's (stored, seq),
-- and a statement that targets another (a StatementRef object, voiding included) also carries
-- every row of its target, recursively: the StatementRef closure is computed when a statement
-- is written (statements.repository.ts, `insertStatements`), in either arrival order. A list
-- with one filter is then a walk of the primary key in (stored, seq) order that stops after
-- `limit` rows, whatever the statistics say; other filters are probes of the same key at the
-- same (stored, seq).
--
-- `kind`: 'g' an agent or identified group (its canonical key, as in agent.ts), 'a' an
-- activity id, 'v' a verb id, 'r' a registration. `reach`: how close the value is to the
-- statement: 0 its own actor (or a member of its actor group), which the actor credential and
-- launch token permissions read by; 1 what the plain filters match (the object, the verb, the
-- registration, and everything a StatementRef target matched); 2 what only related_agents /
-- related_activities add (authority, instructor, team, context activities, a SubStatement's
-- parts). A value in several places keeps the lowest reach.
--
-- No foreign key: a batch of 100 statements writes ~700 rows here, and a per-row check against
-- `tenants` (a FOR KEY SHARE lock on the one tenant row, from every concurrent writer) would cost
-- more than the rows themselves. Rows go with their statements, which reference their tenant:
-- whatever deletes a tenant's statements deletes these rows by (tenant_id) in the same transaction.
CREATE TABLE xapi_statement_keys (
  tenant_id uuid NOT NULL,
  kind "char" NOT NULL,
  key text COLLATE "C" NOT NULL,
  stored timestamptz NOT NULL,
  seq bigint NOT NULL,
  statement_id uuid NOT NULL,
  reach smallint NOT NULL CHECK (reach BETWEEN 0 AND 2),
  CONSTRAINT xapi_statement_keys__tenant_id_kind_key_stored_seq PRIMARY KEY (tenant_id, kind, key, stored, seq)
);

-- The agent key of agent.ts for an Agent or Group object with an IFI (NULL without one).
CREATE FUNCTION pg_temp.agent_key(agent jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN jsonb_typeof(agent) <> 'object' THEN NULL
    WHEN agent ? 'mbox' THEN 'mbox|' || (agent ->> 'mbox')
    WHEN agent ? 'mbox_sha1sum' THEN 'mbox_sha1sum|' || lower(agent ->> 'mbox_sha1sum')
    WHEN agent ? 'openid' THEN 'openid|' || (agent ->> 'openid')
    WHEN agent ? 'account' THEN 'account|' || (agent -> 'account' ->> 'homePage') || '|' || (agent -> 'account' ->> 'name')
  END
$$;

-- The statements stored so far: their own values, from the tables this replaces.
INSERT INTO xapi_statement_keys (tenant_id, kind, key, stored, seq, statement_id, reach)
SELECT a.tenant_id, 'g', a.agent_key, s.stored, s.seq, s.id, CASE WHEN a.direct THEN 1 ELSE 2 END
  FROM xapi_statement_agents AS a JOIN xapi_statements AS s ON s.tenant_id = a.tenant_id AND s.id = a.statement_id
UNION ALL
SELECT a.tenant_id, 'a', a.activity_id, s.stored, s.seq, s.id, CASE WHEN a.direct THEN 1 ELSE 2 END
  FROM xapi_statement_activities AS a JOIN xapi_statements AS s ON s.tenant_id = a.tenant_id AND s.id = a.statement_id
UNION ALL
SELECT tenant_id, 'v', verb_id, stored, seq, id, 1 FROM xapi_statements
UNION ALL
SELECT tenant_id, 'r', registration::text, stored, seq, id, 1 FROM xapi_statements WHERE registration IS NOT NULL;

UPDATE xapi_statement_keys AS k
   SET reach = 0
  FROM xapi_statements AS s
 CROSS JOIN LATERAL (
       SELECT s.statement -> 'actor'
        UNION ALL
       SELECT jsonb_array_elements(CASE WHEN jsonb_typeof(s.statement -> 'actor' -> 'member') = 'array'
                                        THEN s.statement -> 'actor' -> 'member' ELSE '[]'::jsonb END)
     ) AS actor (agent)
 WHERE k.tenant_id = s.tenant_id AND k.kind = 'g' AND k.key = pg_temp.agent_key(actor.agent)
   AND k.stored = s.stored AND k.seq = s.seq;

-- The StatementRef closure of what is stored: every statement takes the values of every
-- statement it targets, directly or through others, at reach 1 or more.
INSERT INTO xapi_statement_keys (tenant_id, kind, key, stored, seq, statement_id, reach)
WITH RECURSIVE targets (tenant_id, id, stored, seq, target, depth) AS (
  SELECT tenant_id, id, stored, seq, object_statement_id, 1
    FROM xapi_statements WHERE object_statement_id IS NOT NULL
  UNION
  SELECT r.tenant_id, r.id, r.stored, r.seq, t.object_statement_id, r.depth + 1
    FROM targets AS r JOIN xapi_statements AS t ON t.tenant_id = r.tenant_id AND t.id = r.target
   WHERE t.object_statement_id IS NOT NULL AND r.depth < 32
)
SELECT r.tenant_id, k.kind, k.key, r.stored, r.seq, r.id, min(GREATEST(k.reach, 1))
  FROM targets AS r JOIN xapi_statement_keys AS k ON k.tenant_id = r.tenant_id AND k.statement_id = r.target
 GROUP BY r.tenant_id, k.kind, k.key, r.stored, r.seq, r.id
ON CONFLICT (tenant_id, kind, key, stored, seq) DO UPDATE SET reach = LEAST(xapi_statement_keys.reach, EXCLUDED.reach);

DROP FUNCTION pg_temp.agent_key(jsonb);
DROP TABLE xapi_statement_agents;
DROP TABLE xapi_statement_activities;
-- Verb and registration lists walk xapi_statement_keys now.
DROP INDEX xapi_statements__tenant_id_verb_id_stored;
DROP INDEX xapi_statements__tenant_id_registration_stored;
