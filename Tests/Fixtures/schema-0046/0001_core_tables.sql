-- PushLedger core tables: installations, tokens, low-volume telemetry, keys, failed events,
-- and the de-duplication ledger. High-volume time series are partitioned in 0002.
--
-- Citus-ready: every table carries app_id (the distribution column); every primary or unique
-- key contains it; no foreign keys (they would cross shards and slow the writer down).
-- Every telemetry row keeps event_id, the device time `at`, the skew-corrected `occurred_at`
-- and the server's `received_at`, plus the batch's platform and versions (reports slice by them).

-- One row per (app, event_id) ever stored, telemetry and sends alike: the first stored copy
-- wins. A unique index on a partitioned table must contain the partition key, so the
-- de-duplication lives here, not on the event tables.
create table event_ids (
    app_id      text        not null,
    event_id    uuid        not null,
    received_at timestamptz not null,
    primary key (app_id, event_id)
);
-- Retention deletes old rows by time; BRIN is nearly free on an append-mostly table.
create index event_ids_received_brin on event_ids using brin (received_at);

create table installations (
    app_id           text        not null,
    installation_id  uuid        not null,
    platform         text        not null check (platform in ('ios', 'android')),
    first_seen_at    timestamptz not null,  -- earliest occurred_at of any stored event
    last_seen_at     timestamptz not null,  -- latest occurred_at of any stored event
    last_received_at timestamptz not null,
    -- Versions of the batch holding the latest event (a late retry of an old batch does not
    -- roll them back).
    app_version      text,
    os_version       text,
    sdk_int          integer,
    primary key (app_id, installation_id)
);
create index installations_app_received on installations (app_id, last_received_at);

-- Tokens are up to 4,096 characters (FCM), past the btree entry limit: keys and lookups use
-- token_key, an md5 digest (immutable, 16 bytes), and compare the token text only as data.
create table token_registrations (
    app_id          text        not null,
    event_id        uuid        not null,
    installation_id uuid        not null,
    platform        text        not null,
    app_version     text,
    os_version      text,
    sdk_int         integer,
    provider        text        not null check (provider in ('apns', 'fcm')),
    token           text        not null,
    token_key       uuid        not null generated always as (md5(token)::uuid) stored,
    environment     text,
    at              timestamptz not null,
    occurred_at     timestamptz not null,
    received_at     timestamptz not null,
    primary key (app_id, event_id)
);
-- "latest registration of this token at or before T" (send resolution, already-invalid check)
create index token_registrations_lookup
    on token_registrations (app_id, provider, token_key, occurred_at, received_at, event_id);

-- Current state of each token: registrations and sender results folded in by the writer.
create table push_tokens (
    app_id             text        not null,
    provider           text        not null check (provider in ('apns', 'fcm')),
    token_key          uuid        not null,
    token              text        not null,
    environment        text,
    installation_id    uuid,                 -- of the latest registration
    first_registered_at timestamptz,         -- null: only ever seen in sender results
    last_registered_at timestamptz,
    invalidated_at     timestamptz,          -- sent_at of the latest invalidating send result
    invalidated_status integer,
    invalidated_reason text,
    unregistered_at    timestamptz,          -- APNs 410 timestamp, when given
    -- metrics.md: invalid until a registration happens after the invalidating result.
    is_valid           boolean     not null generated always as (
        invalidated_at is null or coalesce(last_registered_at > invalidated_at, false)) stored,
    primary key (app_id, provider, token_key)
);
create index push_tokens_installation on push_tokens (app_id, installation_id);

create table permission_prompts (
    app_id          text        not null,
    event_id        uuid        not null,
    installation_id uuid        not null,
    platform        text        not null,
    app_version     text,
    os_version      text,
    sdk_int         integer,
    placement       text        not null,
    prompt          text        not null check (prompt in ('system', 'primer')),
    result          text        not null
        check (result in ('granted', 'provisional', 'denied', 'dismissed', 'already_determined')),
    at              timestamptz not null,
    occurred_at     timestamptz not null,
    received_at     timestamptz not null,
    primary key (app_id, event_id)
);
create index permission_prompts_installation on permission_prompts (app_id, installation_id, occurred_at);
create index permission_prompts_time on permission_prompts (app_id, occurred_at);

create table experiment_exposures (
    app_id          text        not null,
    event_id        uuid        not null,
    installation_id uuid        not null,
    platform        text        not null,
    app_version     text,
    os_version      text,
    sdk_int         integer,
    experiment      text        not null,
    variant         text        not null,
    at              timestamptz not null,
    occurred_at     timestamptz not null,
    received_at     timestamptz not null,
    primary key (app_id, event_id)
);
create index experiment_exposures_lookup
    on experiment_exposures (app_id, experiment, installation_id, occurred_at);

-- Snowplow-style failed-event store: rejected events (raw JSON and reason) and requests
-- rejected as a whole (raw body, event_index null). Nothing disappears without a trace.
create table failed_events (
    id          bigint generated always as identity,
    app_id      text        not null,  -- '' when the request never named a readable app
    endpoint    text        not null,
    error_code  text        not null,
    message     text        not null,
    event_index integer,
    event_id    text,                  -- as sent, possibly malformed
    raw_json    text        not null,
    received_at timestamptz not null,
    primary key (app_id, id)
);
create index failed_events_app_time on failed_events (app_id, received_at);

-- Keys are shown once and stored only as a SHA-256 hash of the secret's UTF-8 bytes.
create table api_keys (
    id          uuid        not null primary key,
    app_id      text        not null,
    scope       text        not null check (scope in ('telemetry', 'sends')),
    key_hash    bytea       not null unique check (length(key_hash) = 32),
    key_prefix  text        not null,  -- first characters of the secret, for display
    created_at  timestamptz not null default now(),
    revoked_at  timestamptz
);
create index api_keys_app on api_keys (app_id);
