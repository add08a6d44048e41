-- The facts one send is judged on: what every classification path (sql/engine/classify.sql,
-- set-based and per send) gathers, and the one projection of a classified send
-- (pushledger_classified, sql/engine/outcome.sql) reads. Field names are those of
-- pushledger_classified_send where they mean the same.
create type pushledger_send_facts as (
    -- The send attempt, as stored in sends.
    app_id text, event_id uuid, notification_id uuid, installation_id uuid, resolved_by text,
    sent_at timestamptz, provider text, token_key uuid, channel text, campaign text, status integer,
    reason text, collapse_id text, expires_at timestamptz,
    -- Its as-of snapshot (null without one), but platform: the snapshot's, else the
    -- installation's, else the provider's.
    snapshot_event_id uuid, platform text, app_version text, can_display boolean, authorization_status text,
    os_version text, sdk_int integer, standby_bucket text, background_restricted boolean,
    ignoring_battery_optimizations boolean, low_power_mode boolean,
    -- The other facts the outcome rules read.
    channel_blocked boolean, opened boolean, received_displayed boolean, received_undisplayed boolean,
    first_receipt_at timestamptz, to_invalid_token boolean, instrumented boolean);
