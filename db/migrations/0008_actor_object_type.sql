-- Actors are agents and identified groups (interface 2.6). An identified group a statement names
-- (or an upsert sends) is stored like an agent, under the key of its one IFI, and told apart here;
-- `members` keeps the members a group was last sent with (xAPI agents, IFI and name only).
ALTER TABLE actors
  ADD COLUMN object_type text NOT NULL DEFAULT 'Agent',
  ADD COLUMN members jsonb,
  ADD CONSTRAINT actors__object_type CHECK (object_type IN ('Agent', 'Group')),
  ADD CONSTRAINT actors__members_array CHECK (members IS NULL OR jsonb_typeof(members) = 'array');
