-- Contract v1.3, Web Push: the browser as the third platform (docs/contract.md "Web Push").
-- Web installations and their settings, webpush tokens and sends, dismissals stored as
-- receipts; sends classified and rolled up by browser and push service as well.

-- The platform and provider lists widen.
alter table installations drop constraint installations_platform_check,
    add constraint installations_platform_check check (platform in ('ios', 'android', 'web'));
alter table settings_snapshots drop constraint settings_snapshots_platform_check,
    add constraint settings_snapshots_platform_check check (platform in ('ios', 'android', 'web'));
alter table token_registrations drop constraint token_registrations_provider_check,
    add constraint token_registrations_provider_check check (provider in ('apns', 'fcm', 'webpush'));
alter table push_tokens drop constraint push_tokens_provider_check,
    add constraint push_tokens_provider_check check (provider in ('apns', 'fcm', 'webpush'));
alter table sends drop constraint sends_provider_check,
    add constraint sends_provider_check check (provider in ('apns', 'fcm', 'webpush'));
alter table token_invalidations drop constraint token_invalidations_provider_check,
    add constraint token_invalidations_provider_check check (provider in ('apns', 'fcm', 'webpush'));

-- A web envelope's browser, kept with the installation and its snapshots (reports slice by it).
alter table installations add column browser text, add column browser_version text;

-- Web settings, and can_display with the web rule (docs/metrics.md "Display state"): a browser
-- shows notifications once the user granted them and the push permission is not denied. The
-- generated column is made again (PostgreSQL 15 cannot alter its expression): one rewrite.
alter table settings_snapshots
    add column browser text, add column browser_version text,
    add column push_permission_state text check (push_permission_state in ('granted', 'denied', 'prompt')),
    add column display_mode text check (display_mode in ('browser', 'standalone')),
    add column subscription text check (subscription in ('active', 'none', 'expired'));
alter table settings_snapshots drop column can_display;
alter table settings_snapshots add column can_display boolean not null generated always as (
    case platform
        when 'ios' then coalesce(
            authorization_status in ('authorized', 'provisional', 'ephemeral')
            and (alert_setting = 'enabled' or lock_screen_setting = 'enabled'
                 or notification_center_setting = 'enabled'
                 or (alert_setting is null and lock_screen_setting is null
                     and notification_center_setting is null)),
            false)
        when 'web' then coalesce(authorization_status = 'authorized'
                                 and push_permission_state is distinct from 'denied', false)
        else coalesce(notifications_enabled, false)
    end) stored;

-- notification_dismissed: a receipt of a displayed notification, marked as a dismissal.
alter table notification_receipts add column dismissed boolean not null default false;

-- Web Push sends: the Urgency header, and the push service the endpoint's host names.
alter table sends
    add column urgency text check (urgency in ('very-low', 'low', 'normal', 'high')),
    add column push_service text check (push_service in ('fcm', 'mozilla', 'apple', 'windows', 'other'));

alter table pushledger_stage_telemetry_shape
    add column browser text, add column browser_version text, add column push_permission_state text,
    add column display_mode text, add column subscription text, add column dismissed boolean;
alter table pushledger_stage_telemetry_shape alter column browser set storage plain,
    alter column browser_version set storage plain, alter column push_permission_state set storage plain,
    alter column display_mode set storage plain, alter column subscription set storage plain;
alter table pushledger_stage_sends_shape add column urgency text, add column push_service text;
alter table pushledger_stage_sends_shape alter column urgency set storage plain,
    alter column push_service set storage plain;

-- The classification carries the browser (from the snapshot's device state) and the push
-- service (from the send) to send_outcomes and the rollups.
alter type pushledger_device_state add attribute browser text;

-- Recreated, not altered, as in 0017: the new fields come before the instrumentation flags.
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
    -- Web: the snapshot's browser, the send's push service.
    browser text, push_service text,
    instrumented boolean, background_instrumented boolean);

alter type pushledger_classified_send add attribute browser text, add attribute push_service text;
alter table send_outcomes add column browser text, add column push_service text;

alter table send_rollups_daily add column browser text, add column push_service text;
alter table send_rollups_daily drop constraint send_rollups_daily_slice;
alter table send_rollups_daily add constraint send_rollups_daily_slice unique nulls not distinct
    (app_id, day, platform, channel, app_version, campaign, provider, os_version, sdk_int, standby_bucket,
     background_restricted, ignoring_battery_optimizations, low_power_mode, push_type, message_kind, browser,
     push_service);

-- Every stored send is judged again at the next refresh (a rebuild).
delete from rollup_refresh_state;
