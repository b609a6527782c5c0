-- Notifications (issue 16; interface 2.7 and 4.6; docs/notifications.md): a message to one actor
-- of the actor store about one activity of the registry, on a channel. Made by
-- POST /api/notifications, read newest first by GET /api/notifications.
--
-- The actor and the activity are stored as they were answered when the notification was made
-- (the actor's name and IFI, the registry's definition): a notification is a message already
-- sent, so a later rename or a new definition does not rewrite it. The filters on the activity's
-- registry tags and attributes are evaluated against the registry at query time.
CREATE TABLE notifications (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  -- Breaks ties between equal timestamps (every notification of one POST has the same one):
  -- newest first is (timestamp DESC, seq DESC), a total order, so pages never overlap.
  seq bigint GENERATED ALWAYS AS IDENTITY,
  -- Set by the server, truncated to milliseconds: the answer's ISO 8601 text carries
  -- milliseconds, so `since` equal to an answered timestamp excludes exactly that notification.
  timestamp timestamptz NOT NULL,
  -- The canonical agent key (xapi/agent.ts), as the actor store keys its actors.
  actor_key text NOT NULL,
  actor jsonb NOT NULL CHECK (jsonb_typeof(actor) = 'object'),
  -- Byte order, as the registry's ids.
  activity_id text COLLATE "C" NOT NULL,
  activity jsonb NOT NULL CHECK (jsonb_typeof(activity) = 'object'),
  channel text NOT NULL,
  object jsonb NOT NULL CHECK (jsonb_typeof(object) = 'object'),
  CONSTRAINT notifications__tenant_id_id PRIMARY KEY (tenant_id, id)
);
-- Every list is answered in (timestamp, seq) order, newest first; each index below serves one
-- equality filter (or none) walked backwards in that order, stopping after skip + limit rows:
-- actorId (and every actor credential's own list), activityId, channel, and no filter at all.
-- A `since` bounds the same walk. Filters without their own index (activityId!, the registry's
-- tags and attributes, a query's set of actors) are checked on the rows such a walk reads.
CREATE INDEX notifications__tenant_id_actor_key_timestamp ON notifications (tenant_id, actor_key, timestamp, seq);
CREATE INDEX notifications__tenant_id_activity_id_timestamp ON notifications (tenant_id, activity_id, timestamp, seq);
CREATE INDEX notifications__tenant_id_channel_timestamp ON notifications (tenant_id, channel, timestamp, seq);
CREATE INDEX notifications__tenant_id_timestamp ON notifications (tenant_id, timestamp, seq);
