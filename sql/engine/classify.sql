-- Classification: the three paths that turn sends into classified sends, each gathering the
-- facts of pushledger_send_facts its own way and ending with the one projection,
-- pushledger_classified (sql/engine/outcome.sql), where the outcome rules are applied:
--   * pushledger_classify_sends: every send of one app in a window, set-based (reports, and the
--     rollups' whole days and rebuild);
--   * pushledger_classify_send_set: a few sends by index look-ups (the incremental refresh);
--   * pushledger_rejudge_outcomes: sends whose only new inputs are confirmations, a slice's
--     first receipt or the passing of time, judged again from their send_outcomes rows.
--
-- Each input is read once for the whole window and joined by hash or merged in time order
-- (classifying a send with index look-ups of its own cost ~60-150 us a send against ~1 us to
-- scan it, README "Performance"):
--   * the as-of snapshot: each of the window's snapshots holds from its time until the next
--     one of its installation (a window function over the snapshots), and a send joins the one
--     whose span holds its time. Only an installation with a send before all of its snapshots
--     in the window looks up the latest snapshot before the window (once per installation);
--   * channel states: the blocked ones (few) of the window's snapshots by one range read, of earlier
--     snapshots by key;
--   * invalidating results: the partial index sends_token_invalid (sql/engine/rejection_class.sql)
--     of the window's tokens, joined to the sends that follow them;
--   * first signs of life (the causes, pushledger_send_causes, given the ids of the sends judged
--     to have one): the telemetry of their installations from the window's start to a week
--     past it, one range read a table, a running minimum per installation; past that span, one
--     look-up per installation.
-- Receipts and opens are read from pushledger_confirmation_lookback() before the window
-- (sql/engine/day.sql): none of a window's sends can be older.
-- Rollups classify a run of consecutive days in one pass (sql/engine/rollups.sql) with
-- receipt instrumentation still judged per UTC day (p_daily), so a rollup row stays the
-- classification of its day as its own window.

-- The causes of the sends p_event_ids of p_app with sent_at in [p_from, p_to), each judged to
-- have one, as of p_as_of (pushledger_cause_rule): each one's first sign of life, found for all
-- of them at once, and whether an attempt replaces it. pushledger_send_cause finds the same for
-- one send by look-ups. The sends come as ids, not rows: reports classify in read-only
-- transactions and on standbys, where no working table can be written.
-- Reads sends, settings_snapshots, notification_receipts, notification_opens, permission_prompts,
-- experiment_exposures, token_registrations (through pushledger_life_events); writes nothing.
create or replace function pushledger_send_causes(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz, p_event_ids uuid[])
returns table (event_id uuid, sent_at timestamptz, cause text, first_life_at timestamptz,
               first_life_notification uuid)
language plpgsql stable
-- Measured on a simulated week: hash joins ~10 % faster than the planner's own choice, but only
-- without JIT (their cost passes its threshold, and compiling took longer than the search: 2x).
set enable_nestloop = off
set enable_mergejoin = off
set jit = off
as $$
#variable_conflict use_column
declare
    -- The end of the range read for first signs of life (a week past the window): a later one
    -- is read by installation, for the few installations silent until then.
    v_life_to timestamptz := least(p_as_of, p_to + interval '7 days');
begin
return query
with caused as materialized (
    -- What their causes depend on, by one read of the window's sends.
    select s.app_id, s.event_id, s.sent_at, s.notification_id, s.installation_id, s.provider, s.collapse_id,
           s.expires_at
      from sends s
     where s.app_id = p_app and s.sent_at >= p_from and s.sent_at < p_to
       and s.event_id in (select unnest(p_event_ids))
), life_events as (
    -- The telemetry of their installations from the window's start to v_life_to, by one range
    -- read of each table: the candidates for a first sign of life.
    select l.*
      from pushledger_life_events(p_app, p_from, v_life_to) l
     where l.installation_id in (select c.installation_id from caused c)
), next_life as (
    -- Each send's first sign of life's time: the earliest event of its installation after it,
    -- a running minimum with the installation's sends and events newest first (a send before
    -- the events of its own time, so that none of those counts).
    select x.event_id, x.sent_at, x.installation_id, x.next_at
      from (select s.*, min(s.life_at) over (partition by s.installation_id order by s.at desc, s.is_life
                                             rows between unbounded preceding and current row) as next_at
              from (select c.installation_id, c.sent_at as at, false as is_life, null::timestamptz as life_at,
                           c.event_id, c.sent_at
                      from caused c
                    union all
                    select l.installation_id, l.occurred_at, true, l.occurred_at, null, null
                      from life_events l) s) x
     where not x.is_life and x.next_at is not null
), first_life as (
    -- ... and the event itself: ties at that time broken by received_at, then event_id.
    select distinct on (n.event_id, n.sent_at) n.event_id, n.sent_at, l.occurred_at, l.kind, l.notification_id,
           l.force_stopped
      from next_life n
      join life_events l on l.installation_id = n.installation_id and l.occurred_at = n.next_at
     order by n.event_id, n.sent_at, l.received_at, l.event_id
), late_life as (
    -- When v_life_to is before p_as_of, the first sign of life after it of each installation
    -- with a send that had none by then: their telemetry past the span, read once for all of
    -- them by each table's (app, installation, time) index (their ids as one array).
    select distinct on (l.installation_id) l.installation_id, l.occurred_at, l.kind, l.notification_id,
           l.force_stopped
      from pushledger_life_events(p_app, v_life_to, p_as_of) l
     where v_life_to < p_as_of
       and l.installation_id = any(array(
               select c.installation_id
                 from caused c
                 left join first_life f on f.event_id = c.event_id and f.sent_at = c.sent_at
                where f.event_id is null))
     order by l.installation_id, l.occurred_at, l.received_at, l.event_id
), lives as materialized (
    -- Each send with its first sign of life, if any.
    select c.*, coalesce(l.occurred_at, ll.occurred_at) as life_at, coalesce(l.kind, ll.kind) as life_kind,
           coalesce(l.notification_id, ll.notification_id) as life_notification,
           coalesce(l.force_stopped, ll.force_stopped) as force_stopped
      from caused c
      left join first_life l on l.event_id = c.event_id and l.sent_at = c.sent_at
      left join late_life ll on l.event_id is null and ll.installation_id = c.installation_id
), receipt_lives as materialized (
    -- The sends whose first sign of life is a receipt of another notification.
    select v.* from lives v where v.life_kind = 'receipt' and v.life_notification <> v.notification_id
), superseded as (
    -- ... that an attempt to the same installation replaces (pushledger_replaces): those
    -- notifications' attempts by their index, one read for all.
    select distinct v.event_id, v.sent_at
      from receipt_lives v
      join sends s on s.app_id = p_app and s.notification_id = v.life_notification
                  and s.installation_id = v.installation_id
     where s.sent_at > p_from
       and s.notification_id = any (array(select x.life_notification from receipt_lives x))
       and pushledger_replaces(v.sent_at, v.provider, v.collapse_id, p_as_of, s.status, s.sent_at, s.provider,
                               s.collapse_id)
), causes as (
    -- The cause rules (no first sign of life: rule 4).
    select v.event_id, v.sent_at,
           pushledger_cause_rule(v.life_kind, sp.event_id is not null, v.force_stopped, v.life_at, v.expires_at)
               as cause,
           v.life_at as first_life_at,
           case when v.life_kind = 'receipt' then v.life_notification end as first_life_notification
      from lives v
      left join superseded sp on sp.event_id = v.event_id and sp.sent_at = v.sent_at
)
select c.event_id, c.sent_at, c.cause, c.first_life_at, c.first_life_notification from causes c;
end
$$;

-- Every send of p_app with sent_at in [p_from, p_to) and at or before p_as_of, classified as of
-- p_as_of with confirmation window p_window; p_daily: instrumentation judged per UTC day of the
-- send (the rollups), else over the whole window (reports).
-- Reads sends, settings_snapshots, channel_states, installations, notification_receipts,
-- notification_opens, token_registrations, and for the sends with a cause pushledger_send_causes;
-- writes nothing.
create or replace function pushledger_classify_sends(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz, p_window interval, p_daily boolean)
returns setof pushledger_classified_send
language plpgsql stable
-- Planned as the set-based joins it is written for: with the window's values (a generic plan
-- guesses ~1,000 sends), hash joins (the planner cannot count the distinct keys of a CTE and
-- picks a look-up per send or sorts), and memory for the hashes (per node; ~100 bytes a send).
set plan_cache_mode = force_custom_plan
set enable_nestloop = off
set enable_mergejoin = off
set jit = off
set work_mem = '256MB'
as $$
begin
return query
with window_sends as materialized (
    select s.app_id, s.event_id, s.notification_id, s.installation_id, s.resolved_by, s.sent_at,
           s.provider, s.token_key, s.channel, s.campaign, s.status, s.reason, s.collapse_id, s.expires_at,
           s.push_type, s.mutable_content, s.message_kind, s.push_service
      from sends s
     where s.app_id = p_app and s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of
), snapshot_spans as (
    -- The window's snapshots of the window's installations, each the as-of state from its time
    -- until the next one's (ties at one time: the last by received_at, then event_id,
    -- holds; the others span nothing).
    select n.installation_id, n.event_id, n.occurred_at,
           row(n.platform, n.app_version, n.can_display, n.authorization_status, n.os_version, n.sdk_int,
               n.standby_bucket, n.background_restricted, n.ignoring_battery_optimizations,
               n.low_power_mode, n.browser)::pushledger_device_state as device,
           lead(n.occurred_at, 1, 'infinity') over (
               partition by n.installation_id order by n.occurred_at, n.received_at, n.event_id) as valid_to
      from settings_snapshots n
     where n.app_id = p_app and n.occurred_at >= p_from and n.occurred_at < p_to
       and n.installation_id in (select w.installation_id from window_sends w)
), window_facts as materialized (
    select w.*, sp.event_id as snap_event_id, sp.device as snap_device
      from window_sends w
      left join snapshot_spans sp on sp.installation_id = w.installation_id
                                 and w.sent_at >= sp.occurred_at and w.sent_at < sp.valid_to
), earlier_snapshots as materialized (
    -- The latest snapshot before the window, for installations with a send before any of
    -- their snapshots in it (the last 31 days first, then older partitions: a split for partition pruning,
    -- not a bound, as the union reads all of them).
    select i.installation_id, snap.*
      from (select distinct f.installation_id from window_facts f
             where f.snap_event_id is null and f.installation_id is not null) i
     cross join lateral (
            select * from (
                (select n.occurred_at, n.event_id,
                        row(n.platform, n.app_version, n.can_display, n.authorization_status, n.os_version,
                            n.sdk_int, n.standby_bucket, n.background_restricted, n.ignoring_battery_optimizations,
                            n.low_power_mode, n.browser)::pushledger_device_state as device
                   from settings_snapshots n
                  where n.app_id = p_app and n.installation_id = i.installation_id
                    and n.occurred_at < p_from and n.occurred_at >= p_from - interval '31 days'
                  order by n.occurred_at desc, n.received_at desc, n.event_id desc
                  limit 1)
                union all
                (select n.occurred_at, n.event_id,
                        row(n.platform, n.app_version, n.can_display, n.authorization_status, n.os_version,
                            n.sdk_int, n.standby_bucket, n.background_restricted, n.ignoring_battery_optimizations,
                            n.low_power_mode, n.browser)::pushledger_device_state as device
                   from settings_snapshots n
                  where n.app_id = p_app and n.installation_id = i.installation_id
                    and n.occurred_at < p_from - interval '31 days'
                  order by n.occurred_at desc, n.received_at desc, n.event_id desc
                  limit 1)
            ) candidates
            limit 1) snap
), earlier_channels as materialized (
    -- The blocked channels of the earlier snapshots, by key (a look-up: not flattened into a
    -- hash join over every partition; materialized, so the look-ups' plan does not steer the
    -- joins below).
    select e.installation_id, e.event_id as snapshot_event_id, c.channel_id
      from earlier_snapshots e
     cross join lateral (
            select c.channel_id
              from channel_states c
             where c.app_id = p_app and c.occurred_at = e.occurred_at
               and c.snapshot_event_id = e.event_id and c.installation_id = e.installation_id and c.blocked
            offset 0) c
), snapshot_channels as (
    -- The blocked channels of the window's snapshots by one range read, and of the earlier
    -- ones. Only blocked rows: a send's channel is blocked when its snapshot has a blocked row
    -- for it (one row per snapshot and channel: the primary key), and few channels are, so
    -- the hash is small and the sends probe it.
    select c.installation_id, c.snapshot_event_id, c.channel_id
      from channel_states c
     where c.app_id = p_app and c.occurred_at >= p_from and c.occurred_at < p_to and c.blocked
    union all
    select * from earlier_channels
), confirmations as (
    -- Every receipt and open of these notifications at or before as_of, however late it came.
    -- None can have occurred pushledger_confirmation_lookback() before its send (the contract's
    -- age limits), so one read from there hashes, instead of a look-up per send in every
    -- monthly partition.
    select x.notification_id, min(x.occurred_at) as first_at,
           bool_or(x.is_receipt and x.displayed is distinct from false) as displayed,
           bool_or(x.is_receipt and x.displayed = false) as undisplayed,
           bool_or(not x.is_receipt) as opened
      from (select r.notification_id, true as is_receipt, r.displayed, r.occurred_at
              from notification_receipts r
             where r.app_id = p_app and r.occurred_at >= p_from - pushledger_confirmation_lookback()
                 and r.occurred_at <= p_as_of
            union all
            select o.notification_id, false, null, o.occurred_at
              from notification_opens o
             where o.app_id = p_app and o.occurred_at >= p_from - pushledger_confirmation_lookback()
                 and o.occurred_at <= p_as_of) x
     where x.notification_id in (select w.notification_id from window_sends w)
     group by x.notification_id
), invalidations as (
    -- The latest earlier result that marked each send's token invalid (few sends have one).
    select s.event_id, s.sent_at, max(p.sent_at) as invalid_at
      from window_sends s
      join sends p on p.app_id = p_app and p.provider = s.provider and p.token_key = s.token_key
                  and p.sent_at < s.sent_at and p.sent_at < p_to
                  and pushledger_reason_class(p.provider, p.status, p.reason) = 'token_invalid'
     group by s.event_id, s.sent_at
), background_notifications as (
    -- The background pushes a receipt of the window can be of (pushledger_background_receipt:
    -- sent at most pushledger_confirmation_lookback() before it), by the partial index
    -- sends_background: each notification's latest at or before as_of.
    select b.notification_id, max(b.sent_at) as last_sent_at
      from sends b
     where b.app_id = p_app and b.push_type = 'background'
       and b.sent_at >= p_from - pushledger_confirmation_lookback() and b.sent_at <= p_as_of
     group by b.notification_id
), instrumented_slices as materialized (
    -- Keyed so the lookup hashes: a null app_version is its own slice (chr(1) never is one);
    -- per UTC day of the receipt when each day is its own window. background: the slice reported
    -- a receipt of a background push.
    select case when p_daily then pushledger_day(r.occurred_at) else date '-infinity' end as day_key,
           r.platform, coalesce(r.app_version, chr(1)) as version_key,
           bool_or(b.last_sent_at >= r.occurred_at - pushledger_confirmation_lookback()) as background
      from notification_receipts r
      left join background_notifications b on b.notification_id = r.notification_id
     where r.app_id = p_app and r.occurred_at >= p_from and r.occurred_at < p_to
       and r.occurred_at <= p_as_of
     group by 1, 2, 3
), facts as (
    -- Each send's facts, in the fields of pushledger_send_facts but the last two.
    select f.app_id, f.event_id, f.notification_id, f.installation_id, f.resolved_by, f.sent_at, f.provider,
           f.token_key, f.channel, f.campaign, f.status, f.reason, f.collapse_id, f.expires_at,
           coalesce(f.snap_event_id, e.event_id) as snapshot_event_id,
           coalesce((d.device).platform, i.platform, pushledger_provider_platform(f.provider))
               as platform,
           (d.device).app_version, (d.device).can_display, (d.device).authorization_status, (d.device).os_version,
           (d.device).sdk_int, (d.device).standby_bucket, (d.device).background_restricted,
           (d.device).ignoring_battery_optimizations, (d.device).low_power_mode,
           ch.channel_id is not null as channel_blocked,
           coalesce(cf.opened, false) as opened,
           coalesce(cf.displayed, false) as received_displayed,
           coalesce(cf.undisplayed, false) as received_undisplayed,
           cf.first_at as first_receipt_at,
           inv.invalid_at is not null and not exists (
               -- ... not followed by a registration of the token at or before this send.
               select 1 from token_registrations r
                where r.app_id = p_app and r.provider = f.provider and r.token_key = f.token_key
                  and r.occurred_at > inv.invalid_at and r.occurred_at <= f.sent_at) as to_invalid_token,
           f.push_type, f.mutable_content, f.message_kind, (d.device).browser, f.push_service
      from window_facts f
      left join earlier_snapshots e on e.installation_id = f.installation_id and f.snap_event_id is null
     -- The send's snapshot: the window's that holds at its time, else the latest before the window.
     cross join lateral (select case when f.snap_event_id is not null then f.snap_device else e.device end
                                    as device) d
      left join installations i on i.app_id = p_app and i.installation_id = f.installation_id
      left join snapshot_channels ch on ch.snapshot_event_id = coalesce(f.snap_event_id, e.event_id)
                                    and ch.installation_id = f.installation_id and ch.channel_id = f.channel
      left join confirmations cf on cf.notification_id = f.notification_id
      left join invalidations inv on inv.event_id = f.event_id and inv.sent_at = f.sent_at
), send_facts as (
    -- ... and whether the send's slice reported a receipt, and one of a background push (that
    -- day, when p_daily).
    select f.*, sl.platform is not null as instrumented, coalesce(sl.background, false) as background_instrumented
      from facts f
      left join instrumented_slices sl
        on sl.day_key = case when p_daily then pushledger_day(f.sent_at) else date '-infinity' end
       and sl.platform = f.platform and sl.version_key = coalesce(f.app_version, chr(1))
), caused as materialized (
    -- The sends with a cause (judged once without one).
    select f.event_id
      from send_facts f
     cross join lateral pushledger_classified(f::pushledger_send_facts, p_as_of, p_window, true) c
     where pushledger_has_cause(c.outcome, c.display_state, c.installation_id is not null, c.instrumented,
                                c.provider, c.push_type, c.background_instrumented)
)
select c.*
  from send_facts f
  left join pushledger_send_causes(p_app, p_from, p_to, p_as_of, array(select c.event_id from caused c)) k
         on k.event_id = f.event_id and k.sent_at = f.sent_at
 cross join lateral pushledger_classified(f::pushledger_send_facts, p_as_of, p_window, true,
                                          k.cause, k.first_life_at, k.first_life_notification) c;
end
$$;

-- The report windows' classification (instrumentation judged over the whole window).
-- Reads pushledger_classify_sends; writes nothing.
create or replace function pushledger_classified_sends(
    p_app text, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns setof pushledger_classified_send
language sql stable as $$
    select * from pushledger_classify_sends(p_app, p_from, p_to, p_as_of, p_window, false)
$$;

-- The same classification for a small set of sends, each by index look-ups of its own: the
-- incremental refresh's path (sql/engine/rollups.sql). Those after p_as_of or no longer stored
-- return nothing. Each send is judged with its UTC day as the window, as the rollups are: a
-- slice is instrumented when instrumented_slices_daily holds it for that day (the refresh
-- brings those up to date first).
-- Reads rollup_send_set (the sends, sql/engine/work_tables.sql), sends, settings_snapshots,
-- channel_states, installations, notification_receipts, notification_opens,
-- token_registrations, instrumented_slices_daily; writes nothing.
create or replace function pushledger_classify_send_set(p_as_of timestamptz, p_window interval)
returns setof pushledger_classified_send
language plpgsql stable
-- A look-up per send: the opposite of the engine's whole-day plan.
set enable_hashjoin = off
set enable_mergejoin = off
set jit = off
as $$
begin
return query
with set_sends as materialized (
    select s.app_id, s.event_id, s.notification_id, s.installation_id, s.resolved_by, s.sent_at,
           s.provider, s.token_key, s.channel, s.campaign, s.status, s.reason, s.collapse_id, s.expires_at,
           s.push_type, s.mutable_content, s.message_kind, s.push_service
      from (select distinct k.app_id, k.sent_at, k.event_id from rollup_send_set k) k
      join sends s on s.app_id = k.app_id and s.sent_at = k.sent_at and s.event_id = k.event_id
     where s.sent_at <= p_as_of
), facts as materialized (
    -- Each send's facts, in the fields of pushledger_send_facts but the instrumentation, by look-ups
    -- (materialized: invalid_at, a look-up, is read twice below).
    select w.*, snap.event_id as snapshot_event_id,
           coalesce(snap.platform, i.platform, pushledger_provider_platform(w.provider)) as platform,
           snap.app_version, snap.can_display, snap.authorization_status, snap.os_version, snap.sdk_int,
           snap.standby_bucket, snap.background_restricted, snap.ignoring_battery_optimizations, snap.low_power_mode,
           snap.browser,
           coalesce((select c.blocked from channel_states c
                      where c.app_id = w.app_id and c.occurred_at = snap.occurred_at
                        and c.snapshot_event_id = snap.event_id and c.channel_id = w.channel),
                        false) as channel_blocked,
           coalesce(cf.opened, false) as opened,
           coalesce(cf.displayed, false) as received_displayed,
           coalesce(cf.undisplayed, false) as received_undisplayed,
           cf.first_at as first_receipt_at,
           (select max(p.sent_at) from sends p
             where p.app_id = w.app_id and p.provider = w.provider and p.token_key = w.token_key
               and p.sent_at < w.sent_at
               and pushledger_reason_class(p.provider, p.status, p.reason) = 'token_invalid') as invalid_at
      from set_sends w
      left join lateral (
            select n.event_id, n.occurred_at, n.platform, n.app_version, n.can_display, n.authorization_status,
                   n.os_version, n.sdk_int, n.standby_bucket, n.background_restricted, n.ignoring_battery_optimizations,
                   n.low_power_mode, n.browser
              from settings_snapshots n
             where n.app_id = w.app_id and n.installation_id = w.installation_id and n.occurred_at <= w.sent_at
             order by n.occurred_at desc, n.received_at desc, n.event_id desc
             limit 1) snap on true
      left join installations i on i.app_id = w.app_id and i.installation_id = w.installation_id
      left join lateral pushledger_notification_confirmations(w.app_id, w.notification_id, p_as_of) cf on true
), send_facts as materialized (
    -- Materialized: the projection reads channel_blocked and instrumented more than once, and an
    -- inlined sub-select would look them up each time.
    select f.app_id, f.event_id, f.notification_id, f.installation_id, f.resolved_by, f.sent_at, f.provider,
           f.token_key, f.channel, f.campaign, f.status, f.reason, f.collapse_id, f.expires_at, f.snapshot_event_id,
           f.platform, f.app_version, f.can_display, f.authorization_status, f.os_version, f.sdk_int, f.standby_bucket,
           f.background_restricted, f.ignoring_battery_optimizations, f.low_power_mode, f.channel_blocked, f.opened,
           f.received_displayed, f.received_undisplayed, f.first_receipt_at,
           f.invalid_at is not null and not exists (
               select 1 from token_registrations r
                where r.app_id = f.app_id and r.provider = f.provider and r.token_key = f.token_key
                  and r.occurred_at > f.invalid_at and r.occurred_at <= f.sent_at),
           f.push_type, f.mutable_content, f.message_kind, f.browser, f.push_service, sl.app_id is not null,
           coalesce(sl.background, false)
      from facts f
      left join instrumented_slices_daily sl
        on sl.app_id = f.app_id and sl.day = pushledger_day(f.sent_at) and sl.platform = f.platform
       and sl.app_version is not distinct from f.app_version
)
select c.* from send_facts f cross join lateral pushledger_classified(f::pushledger_send_facts, p_as_of, p_window) c;
end
$$;

-- The sends whose only new inputs are receipts or opens of their notification (scope 1), a
-- new instrumented slice of their day (or one newly reporting background receipts), or the
-- passing of time (scope 0) keep every other fact
-- they were judged on: they are judged again from their send_outcomes rows, with their confirmations looked up again
-- (scope 1) and their slice's instrumentation read again, without the look-ups of the sends, snapshots, channels and
-- tokens. Its own projection: the send_outcomes row it starts from, with what changed.
-- Reads rollup_keys (the sends and their scopes) and rollup_old (their rows before; both
-- sql/engine/work_tables.sql), notification_receipts, notification_opens (scope 1),
-- instrumented_slices_daily, and for a send that gains a cause, sends and its look-ups
-- (pushledger_send_cause); writes nothing.
create or replace function pushledger_rejudge_outcomes(p_as_of timestamptz, p_window interval)
returns setof send_outcomes
language plpgsql stable
set jit = off
as $$
begin
return query
with facts as materialized (
    select o.*,
           case when k.scope = 1 then coalesce(cf.displayed, false) else o.received_displayed end as now_displayed,
           case when k.scope = 1 then coalesce(cf.undisplayed, false)
               else o.received_undisplayed end as now_undisplayed,
           case when k.scope = 1 then coalesce(cf.opened, false) else o.opened end as now_opened,
           case when k.scope = 1 then pushledger_latency_bucket(o.sent_at, cf.first_at) else o.latency_bucket end
               as now_latency,
           sl.app_id is not null as now_instrumented, coalesce(sl.background, false) as now_background_instrumented
      from rollup_keys k
      join rollup_old o on o.app_id = k.app_id and o.sent_at = k.sent_at and o.event_id = k.event_id
      left join lateral (select * from pushledger_notification_confirmations(o.app_id, o.notification_id, p_as_of)
                          where k.scope = 1) cf on true
      left join instrumented_slices_daily sl
        on sl.app_id = o.app_id and sl.day = o.day and sl.platform = o.platform
       and sl.app_version is not distinct from o.app_version
     where k.scope < 2
), judged as materialized (
    select f.*,
           pushledger_judge_send(f.status, f.now_opened, f.now_displayed, f.now_undisplayed, f.sent_at, p_as_of,
                                 p_window, f.display_state, f.channel_blocked, f.installation_id is not null,
                                 f.now_instrumented, f.provider, f.push_type, f.mutable_content, f.message_kind,
                                 f.now_background_instrumented) as now_outcome
      from facts f
), caused as (
    select j.*, pushledger_has_cause(j.now_outcome, j.display_state, j.installation_id is not null, j.now_instrumented,
                                     j.provider, j.push_type, j.now_background_instrumented) as now_has_cause
      from judged j
)
-- A send that had a cause keeps it: what could change a cause (a telemetry event of its
-- installation, a send of the notification its first sign of life received) re-judges it on
-- every fact. One that gains a cause looks it up.
select j.app_id, j.sent_at, j.event_id, j.day, j.notification_id, j.installation_id, j.provider, j.channel,
       j.campaign, j.status, j.reason, j.reason_class, j.token_invalid, j.to_invalid_token, j.platform,
       j.app_version, j.display_state, j.channel_blocked, j.now_instrumented, j.now_opened, j.now_displayed,
       j.now_undisplayed, j.now_outcome,
       j.os_version, j.sdk_int, j.standby_bucket, j.background_restricted, j.ignoring_battery_optimizations,
       j.low_power_mode,
       case when j.now_has_cause then coalesce(j.cause, c.cause) end,
       case when not j.now_has_cause then null when j.cause is not null then j.first_life_at else c.first_life_at end,
       case when not j.now_has_cause then null when j.cause is not null then j.first_life_notification
            else c.first_life_notification end,
       case when j.now_outcome in ('received', 'opened') then j.now_latency end,
       j.push_type, j.mutable_content, j.message_kind, j.now_background_instrumented, j.browser, j.push_service
  from caused j
  left join lateral (select x.* from sends s
                      cross join lateral pushledger_send_cause(s.app_id, s.installation_id, s.notification_id,
                                                               s.provider,
                                                               s.collapse_id, s.expires_at, s.sent_at, p_as_of) x
                      where s.app_id = j.app_id and s.sent_at = j.sent_at and s.event_id = j.event_id
                        and j.now_has_cause and j.cause is null) c on true;
end
$$;
