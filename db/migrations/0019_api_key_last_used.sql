-- When an API key last authenticated a request, to the minute: each process writes it at most once
-- a minute per key, and only when the stored value is older than a minute (api-key.service.ts).
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
