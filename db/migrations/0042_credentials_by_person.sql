-- A person's learner credentials, newest first (`GET /api/auth/basic`, docs/provisioning.md), the
-- revoked and expired ones included: with a new credential for every launch a learner gathers many,
-- and a tenant millions, which the primary key (tenant, username) would make every listing scan.
-- The partial index of 0033 (the unrevoked ones, which a deactivation revokes) stays.
CREATE INDEX actor_credentials__tenant_id_agent_key_created_at ON actor_credentials (tenant_id, agent_key, created_at);
