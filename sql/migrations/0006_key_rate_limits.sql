-- Optional per-key rate limits: events a second and a burst, enforced by the server in memory
-- (a token bucket per key) and reloaded with the key table. Null: no limit. Both or neither.
alter table api_keys
    add column rate_per_second double precision check (rate_per_second > 0),
    add column rate_burst      integer          check (rate_burst > 0),
    add constraint api_keys_rate_limit_whole check ((rate_per_second is null) = (rate_burst is null));
