-- The writer sends a batch to Postgres in one call (pushledger_apply_batch, sql/writer/apply.sql):
-- each kind of row as one array of the composite types below, where it used to COPY the batch
-- into session staging tables first. The field order is the order Store.BatchRows writes
-- (EventWriterTests holds them to it). seq numbers every valid event of the batch in unit
-- order, then index order; batch_first marks the first copy of an (app_id, event_id) within the
-- batch (a later copy is sent only because it proves its installation alive).
create type pushledger_batch_telemetry as (
    seq integer, unit integer, batch_first boolean,
    app_id text, event_id uuid, installation_id uuid,
    platform text, app_version text, os_version text, sdk_int integer,
    type text, at timestamptz, occurred_at timestamptz, received_at timestamptz,
    authorization_status text, alert_setting text, sound_setting text, badge_setting text,
    lock_screen_setting text, notification_center_setting text, time_sensitive_setting text,
    scheduled_delivery_setting text, alert_style text, notifications_enabled boolean,
    post_notifications text, channel_count integer,
    placement text, prompt text, result text,
    experiment text, variant text,
    provider text, token text, environment text,
    notification_id uuid, channel text, displayed boolean,
    action text, link text, landed text,
    standby_bucket text, background_restricted boolean, ignoring_battery_optimizations boolean,
    force_stopped_before_start boolean, low_power_mode boolean,
    browser text, browser_version text, push_permission_state text, display_mode text, subscription text,
    dismissed boolean
);
create type pushledger_batch_channel as (
    seq integer, channel_id text, importance integer, group_id text, group_blocked boolean
);
create type pushledger_batch_send as (
    seq integer, unit integer,
    app_id text, event_id uuid, notification_id uuid,
    provider text, token text, installation_id uuid,
    channel text, campaign text, sent_at timestamptz, status integer,
    reason text, apns_id text, unregistered_at timestamptz, priority integer, push_type text,
    environment text, latency_ms integer, received_at timestamptz, response_body text,
    collapse_id text, expires_at timestamptz, mutable_content boolean, message_kind text,
    urgency text, push_service text
);
create type pushledger_batch_failure as (
    app_id text, endpoint text, error_code text, message text, event_index integer, event_id text,
    raw_json text, received_at timestamptz, raw_bytes integer, raw_sha256 bytea, installation_id uuid,
    token text
);

-- The staging path this replaces, in every signature a release had.
do $$
declare
    v_function regprocedure;
begin
    for v_function in
        select p.oid::regprocedure from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname = 'public'
           and p.proname in ('pushledger_apply_staged', 'pushledger_store_staged_telemetry',
                             'pushledger_store_staged_sends', 'pushledger_store_staged_invalidations',
                             'pushledger_create_staging', 'pushledger_analyze_staging')
    loop
        execute format('drop function %s', v_function);
    end loop;
end
$$;
drop table pushledger_stage_telemetry_shape, pushledger_stage_channels_shape, pushledger_stage_sends_shape;
