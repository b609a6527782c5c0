-- The activities registry (PUT/GET /api/activities, docs/activities.md): the integrator's
-- catalogue of activities, by IRI. It says what an activity is (its xAPI definition), where its
-- content starts (launch_url, for GET /api/activities/launch), where it sits in a hierarchy
-- (parent_id: a course above its modules) and how it is filtered (tags). GET /xapi/activities
-- answers the registry's definition over what statements said. Upserted entry by entry: a PUT
-- replaces the entries it names and leaves the others.
CREATE TABLE activity_registry (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- Byte order ("C"), so GET /api/activities pages in the same order on every server, whatever
  -- the database's locale, and the primary key's index serves that order.
  id text COLLATE "C" NOT NULL,
  definition jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(definition) = 'object'),
  attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
  tags text[] NOT NULL DEFAULT '{}',
  parent_id text COLLATE "C",
  launch_url text,
  competencies text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT activity_registry__tenant_id_id PRIMARY KEY (tenant_id, id),
  -- Checked at commit: one PUT may name a parent that comes later in its array.
  CONSTRAINT activity_registry__parent FOREIGN KEY (tenant_id, parent_id)
    REFERENCES activity_registry (tenant_id, id) DEFERRABLE INITIALLY DEFERRED
);
-- Children of one parent (GET /api/activities?parentId=, the cycle check's walk), in id order.
CREATE INDEX activity_registry__tenant_id_parent_id ON activity_registry (tenant_id, parent_id, id);
-- GET /api/activities?tag=: `tags @> ARRAY[$tag]`.
CREATE INDEX activity_registry__tags ON activity_registry USING gin (tags);
