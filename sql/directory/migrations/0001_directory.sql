-- The directory of a sharded deployment: which database (shard) holds each app, and the
-- reference data an ingestor needs before it knows the app (the keys, the settings).
-- Every shard is an ordinary PushLedger database migrated from sql/migrations.

create table shards (
    name     text        primary key check (name ~ '^[a-z][a-z0-9_]{0,39}$'),
    -- libpq URL the tools and ingestors use to reach the shard's primary.
    url      text        not null,
    added_at timestamptz not null default now()
);

-- Where each app lives. An app is placed once, before its first event (or by `apps move`).
create table app_placements (
    app_id    text        primary key,
    shard     text        not null references shards (name),
    placed_at timestamptz not null default now()
);
create index app_placements_shard on app_placements (shard);

-- A move in progress (`pushledger apps move`): one row an app until it is finished or rolled
-- back, so an interrupted move is always visible and resumable.
-- state: copying (subscription running, writes go to the source), paused (the app's writes
-- are refused with 503 while the copy catches up), flipped (the map names the target; the
-- source's rows are being dropped).
create table app_moves (
    app_id      text        primary key references app_placements (app_id),
    from_shard  text        not null references shards (name),
    to_shard    text        not null references shards (name),
    state       text        not null check (state in ('copying', 'paused', 'flipped')),
    started_at  timestamptz not null default now(),
    updated_at  timestamptz not null default now(),
    check (from_shard <> to_shard)
);

-- The same key table as a single database's, so `pushledger keys` works on the directory
-- (it is looked up by key hash before the app is known).
create table api_keys (
    id              uuid        not null primary key,
    app_id          text        not null,
    scope           text        not null check (scope in ('telemetry', 'sends')),
    key_hash        bytea       not null unique check (length(key_hash) = 32),
    key_prefix      text        not null,
    created_at      timestamptz not null default now(),
    revoked_at      timestamptz,
    expires_at      timestamptz,
    last_used_at    timestamptz,
    rate_per_second double precision check (rate_per_second > 0),
    rate_burst      integer          check (rate_burst > 0),
    constraint api_keys_rate_limit_whole check ((rate_per_second is null) = (rate_burst is null))
);
create index api_keys_app on api_keys (app_id);

-- The deployment's settings, one row, as on a single database; `migrate` copies them to
-- every shard.
create table pushledger_settings (
    singleton             boolean primary key default true check (singleton),
    partition_granularity text    not null default 'monthly' check (partition_granularity in ('monthly', 'daily'))
);
insert into pushledger_settings default values;
