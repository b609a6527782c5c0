-- xAPI statements (xAPI 2.0 Part 2 §2, Part 3 §2.1). `statement` is the statement as stored
-- (with the id, stored, authority, timestamp and version the LRS assigned), answered as is by
-- format=exact. The other columns exist only to filter and order; they are derived from
-- `statement` on insert and never change, except `voided`.
CREATE TABLE xapi_statements (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  statement jsonb NOT NULL,
  stored timestamptz NOT NULL,
  -- Insertion order: breaks ties between statements stored in the same millisecond (one
  -- batch shares one `stored`), so paging is a total order on (stored, seq).
  seq bigint GENERATED ALWAYS AS IDENTITY,
  verb_id text NOT NULL,
  registration uuid,
  -- The id in a StatementRef object (voiding statements included): StatementRef filter rules.
  object_statement_id uuid,
  -- True for a statement with the verb http://adlnet.gov/expapi/verbs/voided.
  voiding boolean NOT NULL,
  -- True once a voiding statement targets this (non-voiding) statement; such a statement is
  -- answered only by voidedStatementId.
  voided boolean NOT NULL DEFAULT false,
  CONSTRAINT xapi_statements__tenant_id_id PRIMARY KEY (tenant_id, id)
);

CREATE INDEX xapi_statements__tenant_id_stored_seq ON xapi_statements (tenant_id, stored, seq);
CREATE INDEX xapi_statements__tenant_id_verb_id_stored ON xapi_statements (tenant_id, verb_id, stored);
CREATE INDEX xapi_statements__tenant_id_registration_stored ON xapi_statements (tenant_id, registration, stored)
  WHERE registration IS NOT NULL;
CREATE INDEX xapi_statements__tenant_id_object_statement_id ON xapi_statements (tenant_id, object_statement_id)
  WHERE object_statement_id IS NOT NULL;

-- Every agent (by its canonical IFI key, as in agent.ts) a statement names. `direct` rows are
-- what the `agent` filter matches (the actor or the object, or a member of a group there);
-- the others are what only `related_agents=true` adds (authority, instructor, team, and the
-- same places inside a SubStatement).
CREATE TABLE xapi_statement_agents (
  tenant_id uuid NOT NULL,
  agent_key text NOT NULL,
  statement_id uuid NOT NULL,
  direct boolean NOT NULL,
  CONSTRAINT xapi_statement_agents__tenant_id_agent_key_statement_id PRIMARY KEY (tenant_id, agent_key, statement_id),
  CONSTRAINT xapi_statement_agents__statement FOREIGN KEY (tenant_id, statement_id)
    REFERENCES xapi_statements (tenant_id, id) ON DELETE CASCADE
);

-- Every activity a statement names. `direct` rows are the statement's object (the `activity`
-- filter); the others are the context activities and a SubStatement's object and context
-- activities (`related_activities=true`).
CREATE TABLE xapi_statement_activities (
  tenant_id uuid NOT NULL,
  activity_id text NOT NULL,
  statement_id uuid NOT NULL,
  direct boolean NOT NULL,
  CONSTRAINT xapi_statement_activities__tenant_id_activity_id_statement_id PRIMARY KEY (tenant_id, activity_id, statement_id),
  CONSTRAINT xapi_statement_activities__statement FOREIGN KEY (tenant_id, statement_id)
    REFERENCES xapi_statements (tenant_id, id) ON DELETE CASCADE
);

-- The canonical Activity definition (xAPI 2.0 Part 3 §2.5): the latest definition seen in a
-- statement, answered by GET /xapi/activities and by format=canonical.
CREATE TABLE xapi_activities (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id text NOT NULL,
  definition jsonb,
  updated timestamptz NOT NULL,
  CONSTRAINT xapi_activities__tenant_id_id PRIMARY KEY (tenant_id, id)
);

-- What statements have said about one agent (by its IFI key): the names it was given,
-- combined into the Person object of GET /xapi/agents.
CREATE TABLE xapi_agents (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  agent_key text NOT NULL,
  ifi jsonb NOT NULL,
  names text[] NOT NULL DEFAULT '{}',
  updated timestamptz NOT NULL,
  CONSTRAINT xapi_agents__tenant_id_agent_key PRIMARY KEY (tenant_id, agent_key)
);
