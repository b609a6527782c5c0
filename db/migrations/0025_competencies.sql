-- The competency catalogue (docs/learning.md): every competency the job architecture names, and
-- every one an admin adds, once per tenant, matched by name case-insensitively (`name_key` is
-- lower(name), computed in SQL on both engines), under an id that stays when a job import is
-- replaced. A job import updates a competency's spelling and description in place and never
-- deletes one: activities name competencies no job may need today.
CREATE TABLE competencies (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  -- Byte order ("C"), so the catalogue lists in the same order on every server, whatever the
  -- database's locale.
  name_key text COLLATE "C" NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT competencies__tenant_id_id PRIMARY KEY (tenant_id, id),
  CONSTRAINT competencies__tenant_id_name_key UNIQUE (tenant_id, name_key)
);
-- The listing's order and its name search (`q`, a prefix of the key) use the key's index.

-- Which competencies each job requires, in the job's order: rewritten with the jobs by every
-- job import (deleted with them by the cascade), read by skills gaps and reports set-wise.
CREATE TABLE job_competencies (
  tenant_id uuid NOT NULL,
  job_id text NOT NULL,
  competency_id uuid NOT NULL,
  position integer NOT NULL,
  CONSTRAINT job_competencies__tenant_id_job_id_competency_id PRIMARY KEY (tenant_id, job_id, competency_id),
  CONSTRAINT job_competencies__job FOREIGN KEY (tenant_id, job_id) REFERENCES jobs (tenant_id, id) ON DELETE CASCADE,
  CONSTRAINT job_competencies__competency FOREIGN KEY (tenant_id, competency_id) REFERENCES competencies (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX job_competencies__tenant_id_competency_id ON job_competencies (tenant_id, competency_id);

-- Which competencies each registered activity develops (its `competencies`, resolved against the
-- catalogue when it is written): a completion of the activity is evidence of them.
CREATE TABLE activity_competencies (
  tenant_id uuid NOT NULL,
  activity_id text COLLATE "C" NOT NULL,
  competency_id uuid NOT NULL,
  CONSTRAINT activity_competencies__tenant_id_activity_id_competency_id PRIMARY KEY (tenant_id, activity_id, competency_id),
  CONSTRAINT activity_competencies__activity FOREIGN KEY (tenant_id, activity_id)
    REFERENCES activity_registry (tenant_id, id) ON DELETE CASCADE,
  CONSTRAINT activity_competencies__competency FOREIGN KEY (tenant_id, competency_id)
    REFERENCES competencies (tenant_id, id) ON DELETE CASCADE
);
-- The activities that develop a competency (recommendations, the catalogue's counts).
CREATE INDEX activity_competencies__tenant_id_competency_id ON activity_competencies (tenant_id, competency_id, activity_id);

-- An activity whose completion counts only when passed (docs/activities.md, `requiresSuccess`).
ALTER TABLE activity_registry ADD COLUMN requires_success boolean NOT NULL DEFAULT false;

-- The catalogue of what is stored already: each job competency once, the last spelling in
-- import order, the last non-empty description.
INSERT INTO competencies (tenant_id, name, name_key, description)
SELECT o.tenant_id, (array_agg(o.name ORDER BY o.job_position DESC, o.ord DESC))[1], lower(o.name),
       COALESCE((array_agg(o.description ORDER BY o.job_position DESC, o.ord DESC) FILTER (WHERE o.description <> ''))[1], '')
  FROM (SELECT j.tenant_id, c.value ->> 'Name' AS name, COALESCE(c.value ->> 'Description', '') AS description,
               j.position AS job_position, c.ord
          FROM jobs j CROSS JOIN LATERAL jsonb_array_elements(j.competencies) WITH ORDINALITY AS c (value, ord)) AS o
 GROUP BY o.tenant_id, lower(o.name);

INSERT INTO job_competencies (tenant_id, job_id, competency_id, position)
SELECT DISTINCT ON (j.tenant_id, j.id, k.id) j.tenant_id, j.id, k.id, c.ord
  FROM jobs j
 CROSS JOIN LATERAL jsonb_array_elements(j.competencies) WITH ORDINALITY AS c (value, ord)
  JOIN competencies k ON k.tenant_id = j.tenant_id AND k.name_key = lower(c.value ->> 'Name')
 ORDER BY j.tenant_id, j.id, k.id, c.ord;

-- Registered activities' competency names link to the catalogue where a name matches; a name
-- that matches none stays in the entry's `competencies` as it was sent, unlinked, until the
-- entry is written again (which then refuses it).
INSERT INTO activity_competencies (tenant_id, activity_id, competency_id)
SELECT DISTINCT a.tenant_id, a.id, k.id
  FROM activity_registry a
 CROSS JOIN LATERAL unnest(a.competencies) AS n (name)
  JOIN competencies k ON k.tenant_id = a.tenant_id AND k.name_key = lower(n.name);
