-- Key changes are announced as they commit, so every running `pushledger serve` (listening on
-- the channel `pushledger_keys`, Store's `KeyChangeListener`) reads the keys again at once: a
-- created key works and a revoked one stops everywhere within a second. Only the columns a
-- server reads fire it: storing last uses (`last_used_at`) announces nothing. Applied to the
-- main database and to a sharded deployment's directory, which holds the keys there.

create or replace function pushledger_announce_key_change() returns trigger
language plpgsql as $$
begin
    -- One notification per transaction: Postgres folds equal ones.
    perform pg_notify('pushledger_keys', '');
    return null;
end
$$;

drop trigger if exists api_keys_announce_change on api_keys;
create trigger api_keys_announce_change
    after insert or delete or update of app_id, scope, key_hash, revoked_at, expires_at, rate_per_second, rate_burst
    on api_keys for each statement execute function pushledger_announce_key_change();
