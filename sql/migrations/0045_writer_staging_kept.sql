-- Writer: the staging tables keep their files between batches (found by `make bench`, see
-- README "Performance"). ON COMMIT DELETE ROWS truncated all four staging tables at every
-- commit: an ftruncate(2) per table (~0.3 ms each on the benchmark machine; a fifth of a
-- writer's wall time was IO:DataFileTruncate) and re-opening the files in the next batch. Now
-- the rows stay after commit and the writer deletes them just before the next batch, in a
-- transaction of its own (nothing durable changes, so its commit does not wait for the disk):
-- to the batch's statements the old rows are then dead, and the first scan prunes them.
-- Deleted rows still leave pages behind, so once the tables outgrow p_max_pages they are
-- truncated instead (a new file: the cached plans that read them re-plan once, as after 0040's
-- ANALYZE). Same tables as 0041 otherwise.

-- Makes this session's staging tables ready and empty for a batch: creates them in the first
-- batch of a session, then deletes the previous batch's rows (truncates past p_max_pages).
-- Call before every batch, outside its transaction: a rolled-back batch leaves rows too.
create function pushledger_begin_staging(p_max_pages integer default 256)
returns void
language plpgsql as $$
begin
    if to_regclass('pg_temp.stage_telemetry') is null then
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
        ) on commit preserve rows;
        create temp table stage_channels (
            seq integer not null, channel_id text not null, importance integer not null,
            group_id text, group_blocked boolean
        ) on commit preserve rows;
        create temp table stage_sends (
            seq integer not null, unit integer not null,
            app_id text not null, event_id uuid not null, notification_id uuid not null,
            provider text not null, token text not null, installation_id uuid,
            channel text not null, campaign text, sent_at timestamptz not null, status integer not null,
            reason text, apns_id text, unregistered_at timestamptz, priority integer, push_type text,
            environment text, latency_ms integer, received_at timestamptz not null
        ) on commit preserve rows;
        create temp table stage_fresh (seq integer not null, unit integer not null) on commit preserve rows;
        return;
    end if;
    if pg_relation_size('pg_temp.stage_telemetry') + pg_relation_size('pg_temp.stage_channels')
       + pg_relation_size('pg_temp.stage_sends') + pg_relation_size('pg_temp.stage_fresh')
       > p_max_pages::bigint * current_setting('block_size')::bigint then
        truncate stage_telemetry, stage_channels, stage_sends, stage_fresh;
    else
        delete from stage_telemetry;
        delete from stage_channels;
        delete from stage_sends;
        delete from stage_fresh;
    end if;
end
$$;
