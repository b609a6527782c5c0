-- One SCIM User per userName, without case, enforced by the database (docs/identity.md, "What each
-- SCIM attribute becomes"). The folding is PostgreSQL's lower() under the database's own locale,
-- the same expression the User filters compare with and the SCIM writes lock and check with
-- (scim-user.repository.ts foldUserNames asks the database for it): JavaScript's toLowerCase()
-- disagreed with it (İ, final sigma), so two writers could both find a name free and both take it.
--
-- People who share a folded userName already (what that let in) keep one holder: the active one
-- first, then the one stored first (as the User lists order them). The others lose the userName
-- attribute, so they are no longer SCIM Users (as after a DELETE, but still active): their ids
-- answer 404, and the identity provider's next push of them answers 409 naming the conflict. The
-- value is kept under `userNameBefore0040` so an operator can see what was taken away.
WITH ranked AS (
  SELECT tenant_id, agent_key,
         row_number() OVER (PARTITION BY tenant_id, lower(attributes ->> 'userName')
                            ORDER BY deactivated_at IS NOT NULL, created_at, id) AS rank
    FROM actors
   WHERE attributes ? 'userName'
)
UPDATE actors a
   SET attributes = (a.attributes - 'userName') || jsonb_build_object('userNameBefore0040', a.attributes -> 'userName'),
       updated = now()
  FROM ranked r
 WHERE a.tenant_id = r.tenant_id AND a.agent_key = r.agent_key AND r.rank > 1;

-- A tenant that identifies people by userName (uniqueAttributes) held the moved values as identifiers.
DELETE FROM actor_identifiers i
 USING actors a
 WHERE i.tenant_id = a.tenant_id AND i.agent_key = a.agent_key AND i.attribute = 'userName'
   AND NOT (a.attributes ? 'userName');

DROP INDEX actors__tenant_id_scim_user_name;
CREATE UNIQUE INDEX actors__tenant_id_scim_user_name ON actors (tenant_id, lower(attributes ->> 'userName')) WHERE attributes ? 'userName';

-- An HR webhook message is applied in pieces (docs/identity.md, "HR webhooks"): each piece of its
-- events is one transaction that also records how far the message got (`applied_events`, with
-- `result` holding what the events so far did), so a batch of 1,000 joiners never holds the
-- embedded database's one connection for the whole batch, and a process that dies resumes after
-- the last piece applied. `progressed_at` is when the last piece was applied: the tenants whose
-- messages wait take turns, piece by piece, the oldest turn first.
ALTER TABLE hr_webhook_messages
  ADD COLUMN applied_events integer NOT NULL DEFAULT 0 CHECK (applied_events >= 0),
  ADD COLUMN progressed_at timestamptz;
