-- What a tenant's organisation structure and job architecture are now, as a value each
-- replacement of either sets anew (a random uuid, in the replacement's transaction): a process
-- keeps a copy of them per tenant (organisation/organisation-copy.service.ts) and reads this one
-- row to know whether its copy is still the structure, instead of reading 10,000 entries at every
-- report. Random rather than counted, so a copy is never taken for another (a transaction rolled
-- back, another database with the same tenant).
CREATE TABLE organisation_versions (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  version uuid NOT NULL,
  CONSTRAINT organisation_versions__tenant_id PRIMARY KEY (tenant_id)
);
INSERT INTO organisation_versions (tenant_id, version) SELECT id, gen_random_uuid() FROM tenants;
