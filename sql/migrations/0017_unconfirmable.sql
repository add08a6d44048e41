-- Which sends can confirm (docs/metrics.md "Which sends can confirm"): the outcome engine judges
-- a send also on its push type, mutable content and message kind, and on whether its slice
-- reported a background push's receipt.

-- The facts of one send gain what the send says of itself and the background instrumentation
-- of its slice. Recreated, not altered: the paths cast their rows to it field by field, and the
-- new fields come before the instrumentation flags. Only pushledger_classified
-- (sql/engine/outcome.sql, applied again after this) takes it as a parameter.
drop type pushledger_send_facts cascade;
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
    first_receipt_at timestamptz, to_invalid_token boolean,
    push_type text, mutable_content boolean, message_kind text,
    instrumented boolean, background_instrumented boolean);

-- A classified send and its send_outcomes row keep what the send says of itself (the reports
-- slice by push type and message kind) and its slice's background instrumentation.
alter type pushledger_classified_send
    add attribute push_type text, add attribute mutable_content boolean, add attribute message_kind text,
    add attribute background_instrumented boolean;
alter table send_outcomes
    add column push_type text, add column mutable_content boolean, add column message_kind text,
    add column background_instrumented boolean not null default false;
-- Background pushes judged before their slice reported a background receipt: such a receipt
-- judges them again.
create index send_outcomes_background_uninstrumented on send_outcomes (app_id, day, platform, app_version)
    where push_type = 'background' and not background_instrumented;

-- Background pushes by time: which receipts are of one (the background instrumentation).
create index sends_background on sends (app_id, sent_at, notification_id) where push_type = 'background';

-- A slice reported a receipt of a background push that day.
alter table instrumented_slices_daily add column background boolean not null default false;

-- Rollups: unconfirmable sends, push type and message kind in the key, and the background sends
-- unconfirmable only because their slice reported no background receipt that day (a wider
-- window may judge them again): with a known state (then unconfirmed, with their causes) or not
-- (then unattributed).
alter table send_rollups_daily
    add column push_type text, add column message_kind text,
    add column unconfirmable integer not null default 0,
    add column unconfirmable_uninstrumented integer not null default 0,
    add column unconfirmable_unattributed integer not null default 0,
    add column superseded_background integer not null default 0,
    add column app_stopped_background integer not null default 0,
    add column expired_background integer not null default 0,
    add column device_inactive_background integer not null default 0,
    add column unexplained_background integer not null default 0;
alter table send_rollups_daily drop constraint send_rollups_daily_slice;
alter table send_rollups_daily add constraint send_rollups_daily_slice unique nulls not distinct
    (app_id, day, platform, channel, app_version, campaign, provider, os_version, sdk_int, standby_bucket,
     background_restricted, ignoring_battery_optimizations, low_power_mode, push_type, message_kind);

-- Every stored send is judged again under the new rule at the next refresh (a rebuild).
delete from rollup_refresh_state;
