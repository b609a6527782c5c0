-- People and statement authorities apart (issue 25): every statement an API key or admin stores
-- names the credential as its authority (an Agent whose account is the key, the admin id, the
-- learner credential's username or the launch session's id, at the server's address), and the
-- actor store recorded that agent like any person, so GET /api/actors listed credentials among the
-- people. `authority_only` marks an actor known only as an authority: true while every sighting
-- was an authority, false once it is imported, upserted or named anywhere else in a statement.
ALTER TABLE actors ADD COLUMN authority_only boolean NOT NULL DEFAULT false;

-- The rows recorded before: an authority has no name, no attributes and an account named by one
-- of the tenant's credentials. A credential deleted before this migration is not known any more:
-- its authority stays listed among the people (GET /api/actors?kind=all lists both anyway).
UPDATE actors AS a SET authority_only = true
 WHERE a.imported_at IS NULL AND a.name IS NULL AND a.attributes IS NULL AND a.names = '{}'
   AND a.object_type = 'Agent' AND a.ifi ? 'account'
   AND (EXISTS (SELECT FROM api_keys k WHERE k.tenant_id = a.tenant_id AND k.key = a.ifi->'account'->>'name')
     OR EXISTS (SELECT FROM admins m WHERE m.tenant_id = a.tenant_id AND m.id::text = a.ifi->'account'->>'name')
     OR EXISTS (SELECT FROM actor_credentials c WHERE c.tenant_id = a.tenant_id AND c.username = a.ifi->'account'->>'name')
     OR EXISTS (SELECT FROM launch_sessions s WHERE s.tenant_id = a.tenant_id AND s.id::text = a.ifi->'account'->>'name'));
