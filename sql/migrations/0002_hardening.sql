-- Key lifetimes: an optional expiry, and the last use as the server flushes it (coarse: at most
-- once a minute per key, so a request never writes to api_keys).
alter table api_keys
    add column expires_at   timestamptz,
    add column last_used_at timestamptz;
