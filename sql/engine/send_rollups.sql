-- The daily send rollups (send_rollups_daily, send_rejections_daily; docs/rollups.md): the
-- grouping of send_outcomes' rows, kept by moving them by the rows that changed. A rollup row
-- counts each outcome counter (sql/engine/outcome_counters.sql), the causes of unconfirmed and
-- unattributed sends, the background pushes unconfirmable only for want of a background receipt
-- that day (with their causes), and the latency buckets.

drop function if exists pushledger_apply_rollup_deltas(timestamptz, text);

-- Adds signed send_outcomes rows (sign -1: a row leaving, +1: a row arriving) to the rollups;
-- rows reaching zero go. The rows: those of rollup_delta (a refresh), or with p_all every row of
-- send_outcomes, each +1 (a rebuild, into empty rollups). Returns the (app, day)s whose counts
-- moved. Planned for the value of p_all, so the source it does not read is left out of the plan.
-- Reads rollup_delta (sql/engine/work_tables.sql) or send_outcomes;
-- writes send_rollups_daily, send_rejections_daily.
create or replace function pushledger_apply_rollup_deltas(p_as_of timestamptz, p_all boolean)
returns table (app_id text, day date)
language plpgsql
set plan_cache_mode = force_custom_plan
as $$
#variable_conflict use_column
declare
    v_apps text[];
    v_days date[];
begin
    with source as not materialized (
        -- Not materialized: each grouping below reads the rows itself (a rebuild's are every
        -- send's).
        select d.* from rollup_delta d where not p_all
        union all
        select 1, o.* from send_outcomes o where p_all
    ), deltas as (
        select d.app_id, d.day, d.platform, d.channel, d.app_version, d.campaign, d.provider,
               d.os_version, d.sdk_int, d.standby_bucket, d.background_restricted, d.ignoring_battery_optimizations,
               d.low_power_mode, d.push_type, d.message_kind,
               sum(d.sign) filter (where pushledger_counts_in('sends', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as sends,
               sum(d.sign) filter (where pushledger_counts_in('accepted', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as accepted,
               sum(d.sign) filter (where pushledger_counts_in('rejected', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as rejected,
               sum(d.sign) filter (where pushledger_counts_in('opened', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as opened,
               sum(d.sign) filter (where pushledger_counts_in('received', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as received,
               sum(d.sign) filter (where pushledger_counts_in('pending', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as pending,
               sum(d.sign) filter (where pushledger_counts_in('blocked_app', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as blocked_app,
               sum(d.sign) filter (where pushledger_counts_in('blocked_channel', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as blocked_channel,
               sum(d.sign) filter (where pushledger_counts_in('unattributed', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as unattributed,
               sum(d.sign) filter (where pushledger_counts_in('unconfirmed', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as unconfirmed,
               sum(d.sign) filter (where pushledger_counts_in('unconfirmable', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as unconfirmable,
               sum(d.sign) filter (where pushledger_counts_in('token_invalid', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as token_invalid,
               sum(d.sign) filter (where pushledger_counts_in('to_invalid_token', d.outcome, d.token_invalid,
                                                              d.to_invalid_token)) as to_invalid_token,
               -- Rule 8's other causes (no as-of snapshot, unresolved installation) hold in any window.
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.display_state <> 'unknown'
                                   and d.installation_id is not null and not d.instrumented) as uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'superseded') as superseded,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'app_stopped') as app_stopped,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'expired') as expired,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'device_inactive') as device_inactive,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'unexplained') as unexplained,
               sum(d.sign) filter (where d.outcome = 'unattributed'
                                   and d.cause = 'superseded') as superseded_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed'
                                   and d.cause = 'app_stopped') as app_stopped_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'expired') as expired_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed'
                                   and d.cause = 'device_inactive') as device_inactive_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed'
                                   and d.cause = 'unexplained') as unexplained_uninstrumented,
               -- Background pushes unconfirmable for want of a background receipt that day: a wider
               -- window with one judges them unconfirmed (a known state, with their causes) or
               -- unattributed.
               sum(d.sign) filter (where d.background and d.display_state <> 'unknown'
                                   and d.installation_id is not null) as unconfirmable_uninstrumented,
               sum(d.sign) filter (where d.background and (d.display_state = 'unknown' or d.installation_id is null))
                   as unconfirmable_unattributed,
               sum(d.sign) filter (where d.background and d.cause = 'superseded') as superseded_background,
               sum(d.sign) filter (where d.background and d.cause = 'app_stopped') as app_stopped_background,
               sum(d.sign) filter (where d.background and d.cause = 'expired') as expired_background,
               sum(d.sign) filter (where d.background and d.cause = 'device_inactive') as device_inactive_background,
               sum(d.sign) filter (where d.background and d.cause = 'unexplained') as unexplained_background,
               sum(d.sign) filter (where d.latency_bucket = 'lt_10s') as latency_lt_10s,
               sum(d.sign) filter (where d.latency_bucket = 'lt_1m') as latency_lt_1m,
               sum(d.sign) filter (where d.latency_bucket = 'lt_10m') as latency_lt_10m,
               sum(d.sign) filter (where d.latency_bucket = 'lt_1h') as latency_lt_1h,
               sum(d.sign) filter (where d.latency_bucket = 'lt_6h') as latency_lt_6h,
               sum(d.sign) filter (where d.latency_bucket = 'lt_24h') as latency_lt_24h,
               sum(d.sign) filter (where d.latency_bucket = 'ge_24h') as latency_ge_24h
          from (select x.*, pushledger_unconfirmable_for_background(x.outcome, x.provider, x.push_type,
                                                                  x.background_instrumented) as background
                  from source x) d
         group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
    ), moved as (
        insert into send_rollups_daily as r (
            app_id, day, platform, channel, app_version, campaign, provider, sends, accepted, rejected, opened,
            received, pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid,
            to_invalid_token, as_of, refreshed_at, unattributed_uninstrumented,
            os_version, sdk_int, standby_bucket, background_restricted, ignoring_battery_optimizations, low_power_mode,
            superseded, app_stopped, expired, device_inactive, unexplained, superseded_uninstrumented,
            app_stopped_uninstrumented, expired_uninstrumented, device_inactive_uninstrumented,
            unexplained_uninstrumented, latency_lt_10s, latency_lt_1m, latency_lt_10m, latency_lt_1h, latency_lt_6h,
            latency_lt_24h, latency_ge_24h, push_type, message_kind, unconfirmable, unconfirmable_uninstrumented,
            unconfirmable_unattributed, superseded_background, app_stopped_background, expired_background,
            device_inactive_background, unexplained_background)
        select d.app_id, d.day, d.platform, d.channel, d.app_version, d.campaign, d.provider, d.sends,
               coalesce(d.accepted, 0), coalesce(d.rejected, 0), coalesce(d.opened, 0), coalesce(d.received, 0),
               coalesce(d.pending, 0), coalesce(d.blocked_app, 0), coalesce(d.blocked_channel, 0),
               coalesce(d.unattributed, 0), coalesce(d.unconfirmed, 0), coalesce(d.token_invalid, 0),
               coalesce(d.to_invalid_token, 0), p_as_of, now(), coalesce(d.uninstrumented, 0),
               d.os_version, d.sdk_int, d.standby_bucket, d.background_restricted, d.ignoring_battery_optimizations,
               d.low_power_mode,
               coalesce(d.superseded, 0), coalesce(d.app_stopped, 0), coalesce(d.expired, 0),
               coalesce(d.device_inactive, 0), coalesce(d.unexplained, 0), coalesce(d.superseded_uninstrumented, 0),
               coalesce(d.app_stopped_uninstrumented, 0), coalesce(d.expired_uninstrumented, 0),
               coalesce(d.device_inactive_uninstrumented, 0), coalesce(d.unexplained_uninstrumented, 0),
               coalesce(d.latency_lt_10s, 0), coalesce(d.latency_lt_1m, 0), coalesce(d.latency_lt_10m, 0),
               coalesce(d.latency_lt_1h, 0), coalesce(d.latency_lt_6h, 0), coalesce(d.latency_lt_24h, 0),
               coalesce(d.latency_ge_24h, 0), d.push_type, d.message_kind, coalesce(d.unconfirmable, 0),
               coalesce(d.unconfirmable_uninstrumented, 0), coalesce(d.unconfirmable_unattributed, 0),
               coalesce(d.superseded_background, 0), coalesce(d.app_stopped_background, 0),
               coalesce(d.expired_background, 0), coalesce(d.device_inactive_background, 0),
               coalesce(d.unexplained_background, 0)
          from deltas d
         where d.sends <> 0 or d.accepted <> 0 or d.rejected <> 0 or d.opened <> 0 or d.received <> 0
            or d.pending <> 0 or d.blocked_app <> 0 or d.blocked_channel <> 0 or d.unattributed <> 0
            or d.unconfirmed <> 0 or d.token_invalid <> 0 or d.to_invalid_token <> 0 or d.uninstrumented <> 0
            or d.superseded <> 0 or d.app_stopped <> 0 or d.expired <> 0 or d.device_inactive <> 0 or d.unexplained <> 0
            or d.superseded_uninstrumented <> 0 or d.app_stopped_uninstrumented <> 0 or d.expired_uninstrumented <> 0
            or d.device_inactive_uninstrumented <> 0 or d.unexplained_uninstrumented <> 0 or d.latency_lt_10s <> 0
            or d.latency_lt_1m <> 0 or d.latency_lt_10m <> 0 or d.latency_lt_1h <> 0 or d.latency_lt_6h <> 0
            or d.latency_lt_24h <> 0 or d.latency_ge_24h <> 0 or d.unconfirmable <> 0
            or d.unconfirmable_uninstrumented <> 0 or d.unconfirmable_unattributed <> 0 or d.superseded_background <> 0
            or d.app_stopped_background <> 0 or d.expired_background <> 0 or d.device_inactive_background <> 0
            or d.unexplained_background <> 0
        on conflict (app_id, day, platform, channel, app_version, campaign, provider, os_version, sdk_int,
                     standby_bucket, background_restricted, ignoring_battery_optimizations, low_power_mode,
                     push_type, message_kind) do update set
            sends = r.sends + excluded.sends, accepted = r.accepted + excluded.accepted,
            rejected = r.rejected + excluded.rejected, opened = r.opened + excluded.opened,
            received = r.received + excluded.received, pending = r.pending + excluded.pending,
            blocked_app = r.blocked_app + excluded.blocked_app,
            blocked_channel = r.blocked_channel + excluded.blocked_channel,
            unattributed = r.unattributed + excluded.unattributed, unconfirmed = r.unconfirmed + excluded.unconfirmed,
            token_invalid = r.token_invalid + excluded.token_invalid,
            to_invalid_token = r.to_invalid_token + excluded.to_invalid_token,
            unattributed_uninstrumented = r.unattributed_uninstrumented + excluded.unattributed_uninstrumented,
            superseded = r.superseded + excluded.superseded,
            app_stopped = r.app_stopped + excluded.app_stopped,
            expired = r.expired + excluded.expired,
            device_inactive = r.device_inactive + excluded.device_inactive,
            unexplained = r.unexplained + excluded.unexplained,
            superseded_uninstrumented = r.superseded_uninstrumented + excluded.superseded_uninstrumented,
            app_stopped_uninstrumented = r.app_stopped_uninstrumented + excluded.app_stopped_uninstrumented,
            expired_uninstrumented = r.expired_uninstrumented + excluded.expired_uninstrumented,
            device_inactive_uninstrumented = r.device_inactive_uninstrumented + excluded.device_inactive_uninstrumented,
            unexplained_uninstrumented = r.unexplained_uninstrumented + excluded.unexplained_uninstrumented,
            latency_lt_10s = r.latency_lt_10s + excluded.latency_lt_10s,
            latency_lt_1m = r.latency_lt_1m + excluded.latency_lt_1m,
            latency_lt_10m = r.latency_lt_10m + excluded.latency_lt_10m,
            latency_lt_1h = r.latency_lt_1h + excluded.latency_lt_1h,
            latency_lt_6h = r.latency_lt_6h + excluded.latency_lt_6h,
            latency_lt_24h = r.latency_lt_24h + excluded.latency_lt_24h,
            latency_ge_24h = r.latency_ge_24h + excluded.latency_ge_24h,
            unconfirmable = r.unconfirmable + excluded.unconfirmable,
            unconfirmable_uninstrumented = r.unconfirmable_uninstrumented + excluded.unconfirmable_uninstrumented,
            unconfirmable_unattributed = r.unconfirmable_unattributed + excluded.unconfirmable_unattributed,
            superseded_background = r.superseded_background + excluded.superseded_background,
            app_stopped_background = r.app_stopped_background + excluded.app_stopped_background,
            expired_background = r.expired_background + excluded.expired_background,
            device_inactive_background = r.device_inactive_background + excluded.device_inactive_background,
            unexplained_background = r.unexplained_background + excluded.unexplained_background,
            as_of = excluded.as_of, refreshed_at = excluded.refreshed_at
        returning r.app_id, r.day
    ), rejection_deltas as (
        select d.app_id, d.day, d.platform, d.provider, d.reason_class, d.reason, d.status, sum(d.sign) as rejected
          from source d where pushledger_counts_in('rejected', d.outcome, d.token_invalid, d.to_invalid_token)
         group by 1, 2, 3, 4, 5, 6, 7 having sum(d.sign) <> 0
    ), rejections_moved as (
        insert into send_rejections_daily as r
        select d.app_id, d.day, d.platform, d.provider, d.reason_class, d.reason, d.status, d.rejected, now()
          from rejection_deltas d
        on conflict (app_id, day, platform, provider, reason_class, reason, status) do update set
            rejected = r.rejected + excluded.rejected, refreshed_at = excluded.refreshed_at
        returning r.app_id, r.day
    )
    select array_agg(m.app_id), array_agg(m.day) into v_apps, v_days
      from (select m.app_id, m.day from moved m union select m.app_id, m.day from rejections_moved m) m;

    delete from send_rollups_daily r using unnest(v_apps, v_days) m(app_id, day)
     where r.app_id = m.app_id and r.day = m.day and r.sends = 0;
    delete from send_rejections_daily r using unnest(v_apps, v_days) m(app_id, day)
     where r.app_id = m.app_id and r.day = m.day and r.rejected = 0;
    return query select m.app_id, m.day from unnest(v_apps, v_days) m(app_id, day);
end
$$;
