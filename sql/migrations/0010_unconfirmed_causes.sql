-- Why a send went unconfirmed and how late the others came (docs/metrics.md "Why a send is
-- unconfirmed", "Delivery latency", "Slices added in v1.2"; contract v1.2).

-- What the sender asked the provider to do with an undeliverable notification.
alter table sends add column collapse_id text, add column expires_at timestamptz;
alter table pushledger_stage_sends_shape add column collapse_id text, add column expires_at timestamptz;
alter table pushledger_stage_sends_shape alter column collapse_id set storage plain;

-- The device's power and process state, as the snapshot reports it (null: not said).
alter table settings_snapshots
    add column standby_bucket text check (standby_bucket in ('active', 'working_set', 'frequent', 'rare', 'restricted')),
    add column background_restricted boolean,
    add column ignoring_battery_optimizations boolean,
    add column force_stopped_before_start boolean,
    add column low_power_mode boolean;
alter table pushledger_stage_telemetry_shape
    add column standby_bucket text, add column background_restricted boolean,
    add column ignoring_battery_optimizations boolean, add column force_stopped_before_start boolean,
    add column low_power_mode boolean;
alter table pushledger_stage_telemetry_shape alter column standby_bucket set storage plain;

-- A send's first sign of life is the earliest telemetry event of its installation after it:
-- each telemetry table is read by installation and time (settings_snapshots_as_of and
-- permission_prompts_installation already are).
create index notification_receipts_installation on notification_receipts (app_id, installation_id, occurred_at);
create index notification_opens_installation on notification_opens (app_id, installation_id, occurred_at);
create index token_registrations_installation on token_registrations (app_id, installation_id, occurred_at);
create index experiment_exposures_installation_time on experiment_exposures (app_id, installation_id, occurred_at);

-- The pushledger_classified_send row and send_outcomes gain the new slices (of the as-of
-- snapshot), the cause of an unconfirmed send (also of one unattributed only for want of
-- receipts in its slice that day: a wider window may judge it unconfirmed), its first sign of
-- life (time, and the notification when it is a receipt: what a new send of that notification
-- can turn into "superseded"), and the latency bucket of a received or opened send.
alter type pushledger_classified_send
    add attribute os_version text, add attribute sdk_int integer, add attribute standby_bucket text,
    add attribute background_restricted boolean, add attribute ignoring_battery_optimizations boolean,
    add attribute low_power_mode boolean, add attribute cause text, add attribute first_life_at timestamptz,
    add attribute first_life_notification uuid, add attribute latency_bucket text;

alter table send_outcomes
    add column os_version text, add column sdk_int integer, add column standby_bucket text,
    add column background_restricted boolean, add column ignoring_battery_optimizations boolean,
    add column low_power_mode boolean, add column cause text, add column first_life_at timestamptz,
    add column first_life_notification uuid, add column latency_bucket text;
-- Sends with a cause, by installation and time: a new telemetry event of the installation
-- re-judges those before it whose first sign of life is not earlier.
create index send_outcomes_cause on send_outcomes (app_id, installation_id, sent_at) where cause is not null;
-- Sends whose first sign of life is a receipt of another notification: a send of that
-- notification may supersede them.
create index send_outcomes_first_life on send_outcomes (app_id, first_life_notification)
    where first_life_notification is not null;

-- Rollups: the new slices in the key; cause and latency bucket counts.
alter table send_rollups_daily
    add column os_version text, add column sdk_int integer, add column standby_bucket text,
    add column background_restricted boolean, add column ignoring_battery_optimizations boolean,
    add column low_power_mode boolean,
    add column superseded integer not null default 0, add column app_stopped integer not null default 0,
    add column expired integer not null default 0, add column device_inactive integer not null default 0,
    add column unexplained integer not null default 0,
    -- The causes of unattributed_uninstrumented (a wider window may judge those unconfirmed).
    add column superseded_uninstrumented integer not null default 0,
    add column app_stopped_uninstrumented integer not null default 0,
    add column expired_uninstrumented integer not null default 0,
    add column device_inactive_uninstrumented integer not null default 0,
    add column unexplained_uninstrumented integer not null default 0,
    add column latency_lt_10s integer not null default 0, add column latency_lt_1m integer not null default 0,
    add column latency_lt_10m integer not null default 0, add column latency_lt_1h integer not null default 0,
    add column latency_lt_6h integer not null default 0, add column latency_lt_24h integer not null default 0,
    add column latency_ge_24h integer not null default 0;
alter table send_rollups_daily drop constraint send_rollups_daily_app_id_day_platform_channel_app_version__key;
alter table send_rollups_daily add constraint send_rollups_daily_slice unique nulls not distinct
    (app_id, day, platform, channel, app_version, campaign, provider, os_version, sdk_int, standby_bucket,
     background_restricted, ignoring_battery_optimizations, low_power_mode);

-- A telemetry event of an installation (any type): the causes of its earlier sends.
alter table rollup_inputs drop constraint rollup_inputs_kind_check;
alter table rollup_inputs add constraint rollup_inputs_kind_check
    check (kind in ('send', 'token', 'registration', 'receipt', 'open', 'snapshot', 'installation', 'life', 'notification'));

-- Existing rows were judged without causes or latency: the next refresh rebuilds.
delete from rollup_refresh_state;
