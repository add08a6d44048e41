-- Writer: staging tables without TOAST (found by `make bench`, see README "Performance").
-- ON COMMIT DELETE ROWS truncates every staging table at each commit, and with it each one's
-- TOAST table, rebuilding that TOAST table's index: perf put the truncation at ~8 % of the
-- Postgres CPU of an ingested event at 32 connections, half of it the TOAST index builds.
-- A table whose variable-length columns are all STORAGE PLAIN gets no TOAST table, and
-- CREATE TABLE takes a column's storage only through LIKE ... INCLUDING STORAGE, hence the
-- empty shape tables below (the columns of 0041).
--
-- A PLAIN row must fit in a page (~8 kB). Events may reach 32 KiB, so a batch with a bigger
-- row fails its COPY with 54000 ("row is too big"); the writer then retries the batch once
-- with pushledger_create_staging(true), which swaps this session's staging tables for ones
-- with TOAST, kept until the connection closes.

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

drop function pushledger_create_staging();

-- Creates this session's staging tables (once per connection; rows vanish at commit), without
-- TOAST; p_toast: with TOAST, replacing TOAST-less ones (a batch held a row over a page).
create function pushledger_create_staging(p_toast boolean default false)
returns void
language plpgsql as $$
declare
    v_has_toast boolean;
begin
    select c.reltoastrelid <> 0 into v_has_toast
      from pg_class c where c.oid = to_regclass('pg_temp.stage_telemetry');
    if v_has_toast is not null then
        if v_has_toast or not p_toast then
            return;
        end if;
        drop table pg_temp.stage_telemetry, pg_temp.stage_channels, pg_temp.stage_sends;
    end if;
    if p_toast then
        create temp table stage_telemetry (like pushledger_stage_telemetry_shape) on commit delete rows;
        create temp table stage_channels (like pushledger_stage_channels_shape) on commit delete rows;
        create temp table stage_sends (like pushledger_stage_sends_shape) on commit delete rows;
    else
        create temp table stage_telemetry (like pushledger_stage_telemetry_shape including storage) on commit delete rows;
        create temp table stage_channels (like pushledger_stage_channels_shape including storage) on commit delete rows;
        create temp table stage_sends (like pushledger_stage_sends_shape including storage) on commit delete rows;
    end if;
    if to_regclass('pg_temp.stage_fresh') is null then
        create temp table stage_fresh (seq integer not null, unit integer not null) on commit delete rows;
    end if;
end
$$;
