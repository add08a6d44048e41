-- High-volume time series, RANGE-partitioned by month on their time column.
--
-- Why monthly: reports read days to weeks, retention is counted in months (the contract
-- refuses events older than 30 days), and a month keeps the partition count low (12 a year
-- per table) so planning and as-of lookups that walk back across partitions stay cheap.
-- Weekly partitions would give finer retention at 4x the partitions; not needed at 30+ days.
--
-- Each table has a DEFAULT partition so an insert is never refused; pushledger_ensure_partitions
-- moves rows out of it when it creates the month they belong to.

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
create index notification_receipts_slice on notification_receipts (app_id, platform, app_version, occurred_at);

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

-- The partitioned tables and their time column, for the partition functions below.
create function pushledger_partitioned_tables()
returns table (table_name text, time_column text)
language sql immutable as $$
    values ('sends', 'sent_at'), ('settings_snapshots', 'occurred_at'), ('channel_states', 'occurred_at'),
           ('notification_receipts', 'occurred_at'), ('notification_opens', 'occurred_at')
$$;

-- Creates the monthly partitions covering [p_from, p_to] (UTC months) for every partitioned
-- table; returns the partitions it created. Cheap when they all exist (a catalog lookup), so
-- the writer calls it for the months of every batch; cron may call it ahead of time.
-- Rows already caught by the default partition are moved into the new month.
create function pushledger_ensure_partitions(p_from timestamptz, p_to timestamptz)
returns setof text
language plpgsql as $$
declare
    v_month timestamptz;
    v_t record;
    v_name text;
    v_moved text;
    v_columns text;
begin
    if p_from is null or p_to is null or p_to < p_from then
        return;
    end if;
    for v_month in
        select generate_series(date_trunc('month', p_from at time zone 'UTC'),
                               date_trunc('month', p_to at time zone 'UTC'), interval '1 month')
               at time zone 'UTC'
    loop
        for v_t in select * from pushledger_partitioned_tables() loop
            v_name := format('%s_p%s', v_t.table_name, to_char(v_month at time zone 'UTC', 'YYYY_MM'));
            continue when to_regclass(v_name) is not null;
            -- Serialise creators (writers and cron) so concurrent calls don't race on one name.
            perform pg_advisory_xact_lock(hashtext('pushledger_ensure_partitions'));
            continue when to_regclass(v_name) is not null;
            v_moved := v_name || '_moving';
            execute format(
                'create temp table %I on commit drop as with d as (delete from %I where %I >= $1 and %I < $2 returning *) select * from d',
                v_moved, v_t.table_name || '_default', v_t.time_column, v_t.time_column)
                using v_month, v_month + interval '1 month';
            execute format('create table %I partition of %I for values from (%L) to (%L)',
                v_name, v_t.table_name, v_month, v_month + interval '1 month');
            -- Generated columns are recomputed, not copied.
            select string_agg(quote_ident(attname), ', ' order by attnum) into v_columns
              from pg_attribute
             where attrelid = v_t.table_name::regclass and attnum > 0 and not attisdropped and attgenerated = '';
            execute format('insert into %I (%s) select %s from %I', v_name, v_columns, v_columns, v_moved);
            execute format('drop table %I', v_moved);
            return next v_name;
        end loop;
    end loop;
end
$$;

-- Days whose rollups must be recomputed: an append-only log (no conflicts, so writers never
-- wait on each other here). The refresh deletes what it has seen; a row committed after
-- that stays for the next refresh.
create table rollup_dirty_days (
    app_id    text        not null,
    day       date        not null,
    marked_at timestamptz not null default now()
);
create index rollup_dirty_days_app_day on rollup_dirty_days (app_id, day);
