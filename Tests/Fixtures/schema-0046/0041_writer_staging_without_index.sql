-- Writer: no index on the staging table of fresh events (found by `make bench`, see README
-- "Performance"). At every commit ON COMMIT DELETE ROWS truncates the staging
-- tables and rebuilds their indexes; rebuilding stage_fresh's primary key updated its
-- catalog statistics, which invalidated every cached plan that joins stage_fresh — nearly
-- every statement of pushledger_apply_staged — so each batch re-planned them. Its rows are
-- unique by construction (one per first copy of a key) and it is only hash-joined, so the
-- index bought nothing: without it Postgres spent 30-45 % less CPU per ingested event
-- (A/B on the same requests). Same tables as 0003 otherwise.

-- Creates this session's staging tables (once per connection; rows vanish at commit).
-- seq orders every staged event of the batch (unit order, then index): the first copy of a
-- duplicated (app_id, event_id) by seq is the one stored.
create or replace function pushledger_create_staging()
returns void
language plpgsql as $$
begin
    if to_regclass('pg_temp.stage_telemetry') is not null then
        return;
    end if;
    create temp table stage_telemetry (
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
    ) on commit delete rows;
    create temp table stage_channels (
        seq integer not null, channel_id text not null, importance integer not null,
        group_id text, group_blocked boolean
    ) on commit delete rows;
    create temp table stage_sends (
        seq integer not null, unit integer not null,
        app_id text not null, event_id uuid not null, notification_id uuid not null,
        provider text not null, token text not null, installation_id uuid,
        channel text not null, campaign text, sent_at timestamptz not null, status integer not null,
        reason text, apns_id text, unregistered_at timestamptz, priority integer, push_type text,
        environment text, latency_ms integer, received_at timestamptz not null
    ) on commit delete rows;
    create temp table stage_fresh (seq integer not null, unit integer not null) on commit delete rows;
end
$$;
