-- Baseline: every table, index, type, role and grant of the schema as migrations 0001-0046 left
-- it (folded once; a database migrated by those files is moved onto this layout without running
-- it: Store.Migrator). Functions, views and triggers live in the definition files of
-- sql/definitions.list. A released migration is never edited: a change is a new migration.
--
-- Citus-ready: every table carries app_id (the distribution column); every primary or unique
-- key contains it; no foreign keys (they would cross shards and slow the writer down).
-- Every telemetry row keeps event_id, the device time `at`, the skew-corrected `occurred_at`
-- and the server's `received_at`, plus the batch's platform and versions (reports slice by them).
--
-- High-volume time series are RANGE-partitioned by month on their time column: reports read
-- days to weeks, retention is counted in months (the contract refuses events older than 30
-- days), and a month keeps the partition count low (12 a year per table) so planning and as-of
-- lookups that walk back across partitions stay cheap. Each has a DEFAULT partition so an
-- insert is never refused; pushledger_ensure_partitions moves rows out of it when it creates
-- the month they belong to.

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

create table sends (
    app_id          text        not null,
    event_id        uuid        not null,
    notification_id uuid        not null,
    provider        text        not null check (provider in ('apns', 'fcm')),
    token           text        not null,
    token_key       uuid        not null generated always as (md5(token)::uuid) stored,
    installation_id uuid,                  -- as sent, or resolved from the token
    resolved_by     text        not null check (resolved_by in ('explicit', 'token', 'unresolved')),
    channel         text        not null,
    campaign        text,
    sent_at         timestamptz not null,
    status          integer     not null,
    reason          text,
    apns_id         text,
    unregistered_at timestamptz,
    priority        integer,
    push_type       text,
    environment     text,
    latency_ms      integer,
    received_at     timestamptz not null,
    primary key (app_id, sent_at, event_id)   -- also the window scan index
) partition by range (sent_at);
create index sends_installation on sends (app_id, installation_id, sent_at);
create index sends_notification on sends (app_id, notification_id);
create index sends_token on sends (app_id, provider, token_key, sent_at);

-- notification_settings events. can_display is metrics.md's app-level rule, computed once.
create table settings_snapshots (
    app_id                      text        not null,
    event_id                    uuid        not null,
    installation_id             uuid        not null,
    platform                    text        not null check (platform in ('ios', 'android')),
    app_version                 text,
    os_version                  text,
    sdk_int                     integer,
    authorization_status        text,
    alert_setting               text,
    sound_setting               text,
    badge_setting               text,
    lock_screen_setting         text,
    notification_center_setting text,
    time_sensitive_setting      text,
    scheduled_delivery_setting  text,
    alert_style                 text,
    notifications_enabled       boolean,
    post_notifications          text,
    channel_count               integer,   -- null: the snapshot carried no channels list
    can_display                 boolean     not null generated always as (
        case platform
            when 'ios' then coalesce(
                authorization_status in ('authorized', 'provisional', 'ephemeral')
                and (alert_setting = 'enabled' or lock_screen_setting = 'enabled'
                     or notification_center_setting = 'enabled'
                     or (alert_setting is null and lock_screen_setting is null
                         and notification_center_setting is null)),
                false)
            else coalesce(notifications_enabled, false)
        end) stored,
    at                          timestamptz not null,
    occurred_at                 timestamptz not null,
    received_at                 timestamptz not null,
    primary key (app_id, occurred_at, event_id)
) partition by range (occurred_at);
-- The as-of lookup: latest snapshot of an installation at or before T (ties: received_at, event_id).
create index settings_snapshots_as_of
    on settings_snapshots (app_id, installation_id, occurred_at, received_at, event_id);

-- One row per channel per snapshot, carrying the snapshot's installation, time and event_id
-- so the as-of lookup reads it directly.
create table channel_states (
    app_id            text        not null,
    snapshot_event_id uuid        not null,
    installation_id   uuid        not null,
    channel_id        text        not null,
    importance        integer     not null,
    group_id          text,
    group_blocked     boolean,
    blocked           boolean     not null generated always as (
        importance = 0 or coalesce(group_blocked, false)) stored,
    occurred_at       timestamptz not null,
    received_at       timestamptz not null,
    primary key (app_id, occurred_at, snapshot_event_id, channel_id)
) partition by range (occurred_at);
create index channel_states_as_of
    on channel_states (app_id, installation_id, channel_id, occurred_at);

create table notification_receipts (
    app_id          text        not null,
    event_id        uuid        not null,
    installation_id uuid        not null,
    platform        text        not null,
    app_version     text,
    os_version      text,
    sdk_int         integer,
    notification_id uuid        not null,
    channel         text,
    displayed       boolean,
    at              timestamptz not null,
    occurred_at     timestamptz not null,
    received_at     timestamptz not null,
    primary key (app_id, occurred_at, event_id)
) partition by range (occurred_at);
create index notification_receipts_notification on notification_receipts (app_id, notification_id);

create table notification_opens (
    app_id          text        not null,
    event_id        uuid        not null,
    installation_id uuid        not null,
    platform        text        not null,
    app_version     text,
    os_version      text,
    sdk_int         integer,
    notification_id uuid        not null,
    action          text        not null,
    link            text,
    landed          text check (landed in ('target', 'fallback', 'rejected')),
    at              timestamptz not null,
    occurred_at     timestamptz not null,
    received_at     timestamptz not null,
    primary key (app_id, occurred_at, event_id)
) partition by range (occurred_at);
create index notification_opens_notification on notification_opens (app_id, notification_id);

create table sends_default partition of sends default;

create table settings_snapshots_default partition of settings_snapshots default;

create table channel_states_default partition of channel_states default;

create table notification_receipts_default partition of notification_receipts default;

create table notification_opens_default partition of notification_opens default;

-- Days whose rollups must be recomputed: an append-only log (no conflicts, so writers never
-- wait on each other here). The refresh deletes what it has seen; a row committed after
-- that stays for the next refresh.
create table rollup_dirty_days (
    app_id    text        not null,
    day       date        not null,
    marked_at timestamptz not null default now()
);
create index rollup_dirty_days_app_day on rollup_dirty_days (app_id, day);

create table send_rollups_daily (
    app_id           text        not null,
    day              date        not null,
    platform         text        not null,
    channel          text        not null,
    app_version      text,
    campaign         text,
    provider         text        not null,
    sends            integer     not null,
    accepted         integer     not null,  -- 2xx and not pending
    rejected         integer     not null,
    opened           integer     not null,
    received         integer     not null,
    pending          integer     not null,
    blocked_app      integer     not null,
    blocked_channel  integer     not null,
    unattributed     integer     not null,
    unconfirmed      integer     not null,
    token_invalid    integer     not null,
    to_invalid_token integer     not null,  -- sends to a token already known invalid
    as_of            timestamptz not null,
    refreshed_at     timestamptz not null,
    -- unattributed only because the slice reported no receipt that day (instrumentation is
    -- judged over a report's window: pushledger_rollup_totals)
    unattributed_uninstrumented integer not null default 0,
    unique nulls not distinct (app_id, day, platform, channel, app_version, campaign, provider)
);
create index send_rollups_daily_pending on send_rollups_daily (app_id, day) where pending > 0;

-- Rejections by provider and reason (the weekly report's breakdown and the rejections_up alert).
create table send_rejections_daily (
    app_id       text        not null,
    day          date        not null,
    platform     text        not null,
    provider     text        not null,
    reason_class text        not null,
    reason       text,
    status       integer     not null,
    rejected     integer     not null,
    refreshed_at timestamptz not null,
    unique nulls not distinct (app_id, day, platform, provider, reason_class, reason, status)
);

-- Daily landing rollups, kept beside send_rollups_daily so the weekly report reads no events.
create table open_landings_daily (
    app_id          text        not null,
    day             date        not null,
    channel         text        not null,
    campaign        text,
    opens           integer     not null,
    landed_reported integer     not null,
    misrouted       integer     not null,
    unique nulls not distinct (app_id, day, channel, campaign)
);

-- When each (app, day) of open_landings_daily was last recomputed: a day is recomputed when
-- its send rollups are newer (whoever refreshed them), so no refresh path can leave it stale.
create table open_landings_days (
    app_id       text        not null,
    day          date        not null,
    refreshed_at timestamptz not null,
    primary key (app_id, day)
);

create table instrumented_slices_daily (
    app_id      text not null,
    day         date not null,
    platform    text not null,
    app_version text,
    unique nulls not distinct (app_id, day, platform, app_version)
);

create table prompt_cohorts_daily (
    app_id                 text        not null,
    experiment             text,       -- null: as-treated cohorts (first prompt placement)
    day                    date        not null,
    cohort                 text        not null,
    platform               text        not null,
    installs               integer     not null,
    prompted               integer     not null,
    granted                integer     not null,
    provisional            integer     not null,
    reached                integer     not null,
    granted_without_prompt integer     not null,
    retained_eligible      integer     not null,
    retained               integer     not null,
    hours_to_prompt        double precision[] not null,
    as_of                  timestamptz not null,
    refreshed_at           timestamptz not null,
    unique nulls not distinct (app_id, experiment, day, cohort, platform)
);

-- Installations whose cohort facts may have changed. `due_at`: the latest occurred_at among
-- the events that marked it. A refresh takes every mark, and puts back those due after its
-- as_of: an event dated after the refresh's as_of counts only from its own time on, so its
-- installation is recomputed again until a refresh as of that time has seen it.
create table prompt_rollup_dirty_installations (
    app_id          text        not null,
    installation_id uuid        not null,
    due_at          timestamptz not null
);
-- The refresh finds a marked installation's exposures to every experiment.
create index experiment_exposures_installation on experiment_exposures (app_id, installation_id);

-- Every firing/resolved change of a rule's state for one slice (the weekly report lists the
-- week's rows). Rates are in [0, 1] (ingest_stale: minutes since the latest telemetry against
-- the threshold); delta_pp in percentage points.
create table alert_transitions (
    id              bigserial   primary key,
    rule            text        not null,
    app_id          text        not null,
    slice           jsonb       not null,
    state           text        not null check (state in ('firing', 'resolved')),
    at              timestamptz not null,
    current_rate    float8,
    baseline_rate   float8,
    current_volume  int8,
    baseline_volume int8,
    delta_pp        float8,
    p_value         float8,
    message         text        not null,
    checked_at      timestamptz not null default now()
);
create index alert_transitions_at on alert_transitions (at);
create index alert_transitions_slice on alert_transitions (rule, app_id, slice, at);

-- The alerts firing now, one row per rule and slice: what a check compares its findings with.
create table alert_states (
    rule          text        not null,
    app_id        text        not null,
    slice         jsonb       not null,
    firing_since  timestamptz not null,
    transition_id bigint      not null,
    primary key (rule, app_id, slice)
);

-- One classified send: a row of pushledger_classified_sends (sql/engine/outcome.sql).
create type pushledger_classified_send as (
    app_id text, event_id uuid, notification_id uuid, installation_id uuid, resolved_by text,
    sent_at timestamptz, day date, provider text, channel text, campaign text,
    status integer, reason text, reason_class text, token_invalid boolean, to_invalid_token boolean,
    platform text, app_version text, snapshot_event_id uuid,
    display_state text,        -- unknown | can_display | cannot_display (app level, as of sent_at)
    authorization_status text, -- of the as-of snapshot (iOS; provisional is reported apart)
    channel_blocked boolean, instrumented boolean,
    opened boolean, received_displayed boolean, received_undisplayed boolean,
    outcome text);

-- Shapes of the writer's session staging tables (sql/writer/staging.sql), empty. Every
-- variable-length column is STORAGE PLAIN so a table created LIKE them INCLUDING STORAGE has no
-- TOAST table: ON COMMIT DELETE ROWS truncates staging at every commit, and with TOAST each
-- truncation rebuilt a TOAST index (~8 % of an ingested event's Postgres CPU at 32
-- connections). A PLAIN row must fit in a page: a batch with a bigger row is retried with
-- staging that has TOAST (pushledger_create_staging(true)). seq orders every staged event of
-- the batch (unit order, then index): the first copy of a duplicated (app_id, event_id) by seq
-- is the one stored.
create table pushledger_stage_telemetry_shape (
    seq integer not null, unit integer not null,
    app_id text not null, event_id uuid not null, installation_id uuid not null,
    platform text not null, app_version text, os_version text, sdk_int integer,
    type text not null, at timestamptz not null, occurred_at timestamptz not null,
    received_at timestamptz not null,
    authorization_status text, alert_setting text, sound_setting text, badge_setting text,
    lock_screen_setting text, notification_center_setting text, time_sensitive_setting text,
    scheduled_delivery_setting text, alert_style text, notifications_enabled boolean,
    post_notifications text, channel_count integer,
    placement text, prompt text, result text,
    experiment text, variant text,
    provider text, token text, environment text,
    notification_id uuid, channel text, displayed boolean,
    action text, link text, landed text
);
create table pushledger_stage_channels_shape (
    seq integer not null, channel_id text not null, importance integer not null,
    group_id text, group_blocked boolean
);
create table pushledger_stage_sends_shape (
    seq integer not null, unit integer not null,
    app_id text not null, event_id uuid not null, notification_id uuid not null,
    provider text not null, token text not null, installation_id uuid,
    channel text not null, campaign text, sent_at timestamptz not null, status integer not null,
    reason text, apns_id text, unregistered_at timestamptz, priority integer, push_type text,
    environment text, latency_ms integer, received_at timestamptz not null
);
do $$
declare
    v_column record;
begin
    for v_column in
        select a.attrelid::regclass as shape, a.attname
          from pg_attribute a
         where a.attrelid in ('pushledger_stage_telemetry_shape'::regclass, 'pushledger_stage_channels_shape'::regclass,
                              'pushledger_stage_sends_shape'::regclass)
           and a.attnum > 0 and a.attlen = -1
    loop
        execute format('alter table %s alter column %I set storage plain', v_column.shape, v_column.attname);
    end loop;
end
$$;

-- The read-only role for dashboards and report readers (roles are cluster-wide: created once).
do $$
begin
    if not exists (select 1 from pg_roles where rolname = 'pushledger_reader') then
        create role pushledger_reader nologin;
    end if;
exception when duplicate_object or unique_violation then
    null;  -- another database's migration created it at the same moment
end
$$;
grant usage on schema public to pushledger_reader;
-- Everything but key hashes, the raw failed events and the writer's bookkeeping (views are
-- granted where they are defined).
grant select on send_rollups_daily, send_rejections_daily,
    sends, settings_snapshots, channel_states, notification_receipts, notification_opens,
    installations, push_tokens, token_registrations, permission_prompts, experiment_exposures,
    open_landings_daily, open_landings_days, instrumented_slices_daily, prompt_cohorts_daily,
    alert_transitions, alert_states
    to pushledger_reader;
