-- Key lifetimes: an optional expiry, and the last use as the server flushes it (coarse: at most
-- once a minute per key, so a request never writes to api_keys).
alter table api_keys
    add column expires_at   timestamptz,
    add column last_used_at timestamptz;

-- Erasures on request (`pushledger erase`): which app and what kind of subject, and a SHA-256
-- of the installation id or token as text; never the id itself.
create table erasures (
    app_id          text        not null,
    subject         text        not null check (subject in ('installation', 'token')),
    subject_hash    bytea       not null check (length(subject_hash) = 32),
    first_erased_at timestamptz not null default now(),
    last_erased_at  timestamptz not null default now(),
    runs            integer     not null default 1,
    primary key (app_id, subject, subject_hash)
);
