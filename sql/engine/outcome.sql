-- The outcome engine: metrics.md "Outcome of one send attempt", every rule once, set-based.
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
--     of the window's tokens, joined to the sends that follow them.
-- Receipts and opens are read from pushledger_confirmation_lookback() before the window
-- (sql/engine/day.sql): none of a window's sends can be older.
-- Rollups classify a run of consecutive days in one pass (sql/engine/rollups.sql) with
-- receipt instrumentation still judged per UTC day (p_daily), so a rollup row stays the
-- classification of its day as its own window.

-- A send's display state from its as-of snapshot (metrics.md "Display state of an installation
-- at a time T"): unknown without one. Inlined like the judgement.
create or replace function pushledger_display_state(p_has_snapshot boolean, p_can_display boolean)
returns text
language sql immutable parallel safe as $$
select case when not p_has_snapshot then 'unknown' when p_can_display then 'can_display' else 'cannot_display' end
$$;

-- The judgement of one send from its facts: metrics.md "Outcome of one send attempt", rules
-- 1-9 in order, the one place they are written. The set-based engine below and the per-send
-- path of the incremental refresh (pushledger_classify_send_set) both call it; a plain SQL
-- function, so the planner inlines it into either query. Stable, not immutable: timestamptz
-- minus interval is stable, and the planner inlines no immutable function whose body is not.
create or replace function pushledger_judge_send(
    p_status integer, p_opened boolean, p_displayed boolean, p_undisplayed boolean,
    p_sent_at timestamptz, p_as_of timestamptz, p_window interval,
    p_display_state text, p_channel_blocked boolean, p_installation_known boolean, p_instrumented boolean)
returns text
language sql stable parallel safe as $$
select case
    when p_status not between 200 and 299 then 'rejected'
    when p_opened then 'opened'
    when p_displayed then 'received'
    when not p_undisplayed and p_sent_at > p_as_of - p_window then 'pending'
    when p_display_state = 'cannot_display' then 'blocked_app'
    when p_display_state <> 'unknown' and p_channel_blocked then 'blocked_channel'
    when p_undisplayed then 'received'
    when p_display_state = 'unknown' or not p_installation_known or not p_instrumented then 'unattributed'
    else 'unconfirmed'
end
$$;

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
           s.provider, s.token_key, s.channel, s.campaign, s.status, s.reason
      from sends s
     where s.app_id = p_app and s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of
), snapshot_spans as (
    -- The window's snapshots of the window's installations, each the as-of state from its time
    -- until the next one's (ties at one time: the last by received_at, then event_id,
    -- holds; the others span nothing).
    select n.installation_id, n.event_id, n.occurred_at, n.platform, n.app_version, n.can_display,
           n.authorization_status,
           lead(n.occurred_at, 1, 'infinity') over (
               partition by n.installation_id order by n.occurred_at, n.received_at, n.event_id) as valid_to
      from settings_snapshots n
     where n.app_id = p_app and n.occurred_at >= p_from and n.occurred_at < p_to
       and n.installation_id in (select w.installation_id from window_sends w)
), window_facts as materialized (
    select w.*, sp.event_id as snap_event_id, sp.platform as snap_platform,
           sp.app_version as snap_version, sp.can_display as snap_can_display,
           sp.authorization_status as snap_authorization
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
                (select n.occurred_at, n.event_id, n.platform, n.app_version,
                        n.can_display, n.authorization_status
                   from settings_snapshots n
                  where n.app_id = p_app and n.installation_id = i.installation_id
                    and n.occurred_at < p_from and n.occurred_at >= p_from - interval '31 days'
                  order by n.occurred_at desc, n.received_at desc, n.event_id desc
                  limit 1)
                union all
                (select n.occurred_at, n.event_id, n.platform, n.app_version,
                        n.can_display, n.authorization_status
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
    select x.notification_id,
           bool_or(x.is_receipt and x.displayed is distinct from false) as displayed,
           bool_or(x.is_receipt and x.displayed = false) as undisplayed,
           bool_or(not x.is_receipt) as opened
      from (select r.notification_id, true as is_receipt, r.displayed
              from notification_receipts r
             where r.app_id = p_app and r.occurred_at >= p_from - pushledger_confirmation_lookback() and r.occurred_at <= p_as_of
            union all
            select o.notification_id, false, null
              from notification_opens o
             where o.app_id = p_app and o.occurred_at >= p_from - pushledger_confirmation_lookback() and o.occurred_at <= p_as_of) x
     where x.notification_id in (select w.notification_id from window_sends w)
     group by x.notification_id
), invalidations as (
    -- The latest earlier result that marked each send's token invalid (few sends have one).
    select s.event_id, s.sent_at, max(p.sent_at) as invalid_at
      from window_sends s
      join sends p on p.app_id = p_app and p.provider = s.provider and p.token_key = s.token_key
                  and p.sent_at < s.sent_at and p.sent_at < p_to
                  and pushledger_reason_class(p.status, p.reason) = 'token_invalid'
     group by s.event_id, s.sent_at
), instrumented_slices as materialized (
    -- Keyed so the lookup hashes: a null app_version is its own slice (chr(1) never is one);
    -- per UTC day of the receipt when each day is its own window.
    select distinct case when p_daily then pushledger_day(r.occurred_at) else date '-infinity' end as day_key,
           r.platform, coalesce(r.app_version, chr(1)) as version_key
      from notification_receipts r
     where r.app_id = p_app and r.occurred_at >= p_from and r.occurred_at < p_to
       and r.occurred_at <= p_as_of
), facts as (
    select f.installation_id, f.event_id, f.notification_id, f.resolved_by, f.sent_at, f.provider,
           f.token_key, f.channel, f.campaign, f.status, f.reason,
           coalesce(f.snap_event_id, e.event_id) as snap_event_id,
           case when f.snap_event_id is not null then f.snap_version else e.app_version end as snap_version,
           case when f.snap_event_id is not null then f.snap_can_display else e.can_display end as can_display,
           case when f.snap_event_id is not null then f.snap_authorization else e.authorization_status end
               as snap_authorization,
           coalesce(case when f.snap_event_id is not null then f.snap_platform else e.platform end,
                    i.platform, case f.provider when 'apns' then 'ios' else 'android' end) as send_platform,
           ch.channel_id is not null as chan_blocked,
           coalesce(cf.displayed, false) as has_displayed,
           coalesce(cf.undisplayed, false) as has_undisplayed,
           coalesce(cf.opened, false) as has_open,
           inv.invalid_at
      from window_facts f
      left join earlier_snapshots e on e.installation_id = f.installation_id and f.snap_event_id is null
      left join installations i on i.app_id = p_app and i.installation_id = f.installation_id
      left join snapshot_channels ch on ch.snapshot_event_id = coalesce(f.snap_event_id, e.event_id)
                                    and ch.installation_id = f.installation_id and ch.channel_id = f.channel
      left join confirmations cf on cf.notification_id = f.notification_id
      left join invalidations inv on inv.event_id = f.event_id and inv.sent_at = f.sent_at
), judged as (
    select f.*,
           f.invalid_at is not null and not exists (
               -- ... not followed by a registration of the token at or before this send.
               select 1 from token_registrations r
                where r.app_id = p_app and r.provider = f.provider and r.token_key = f.token_key
                  and r.occurred_at > f.invalid_at and r.occurred_at <= f.sent_at) as to_invalid,
           sl.platform is not null as is_instrumented
      from facts f
      left join instrumented_slices sl
        on sl.day_key = case when p_daily then pushledger_day(f.sent_at) else date '-infinity' end
       and sl.platform = f.send_platform and sl.version_key = coalesce(f.snap_version, chr(1))
)
select p_app, j.event_id, j.notification_id, j.installation_id, j.resolved_by,
       j.sent_at, pushledger_day(j.sent_at), j.provider, j.channel, j.campaign,
       j.status, j.reason, pushledger_reason_class(j.status, j.reason),
       pushledger_reason_class(j.status, j.reason) is not distinct from 'token_invalid', j.to_invalid,
       j.send_platform, j.snap_version, j.snap_event_id,
       pushledger_display_state(j.snap_event_id is not null, j.can_display),
       j.snap_authorization,
       j.chan_blocked, j.is_instrumented,
       j.has_open, j.has_displayed, j.has_undisplayed,
       pushledger_judge_send(j.status, j.has_open, j.has_displayed, j.has_undisplayed, j.sent_at, p_as_of, p_window,
                             pushledger_display_state(j.snap_event_id is not null, j.can_display),
                             j.chan_blocked, j.installation_id is not null, j.is_instrumented)
  from judged j;
end
$$;

create or replace function pushledger_classified_sends(
    p_app text, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns setof pushledger_classified_send
language sql stable as $$
    select * from pushledger_classify_sends(p_app, p_from, p_to, p_as_of, p_window, false)
$$;

-- A notification's receipts and opens at or before p_as_of, by index (however early: the
-- engine's look-back bound is one no stored receipt can pass): the per-send paths' confirmations.
-- A plain SQL function, inlined into the look-ups.
create or replace function pushledger_notification_confirmations(p_app text, p_notification uuid, p_as_of timestamptz)
returns table (displayed boolean, undisplayed boolean, opened boolean)
language sql stable as $$
select bool_or(x.is_receipt and x.displayed is distinct from false),
       bool_or(x.is_receipt and x.displayed = false),
       bool_or(not x.is_receipt)
  from (select true as is_receipt, r.displayed from notification_receipts r
         where r.app_id = p_app and r.notification_id = p_notification and r.occurred_at <= p_as_of
        union all
        select false, null from notification_opens o
         where o.app_id = p_app and o.notification_id = p_notification and o.occurred_at <= p_as_of) x
$$;

-- The same classification for a small set of sends, each by index look-ups of its own: the
-- incremental refresh's path (sql/engine/rollups.sql). The sends are the rows of the session's
-- temporary table rollup_send_set (app_id, sent_at, event_id, scope); those after p_as_of or no longer
-- stored return nothing. Each send is judged with its UTC day as the window, as the rollups
-- are: a slice is instrumented when instrumented_slices_daily holds it for that day (the
-- refresh brings those up to date first).
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
           s.provider, s.token_key, s.channel, s.campaign, s.status, s.reason
      from (select distinct k.app_id, k.sent_at, k.event_id from rollup_send_set k) k
      join sends s on s.app_id = k.app_id and s.sent_at = k.sent_at and s.event_id = k.event_id
     where s.sent_at <= p_as_of
), facts as materialized (
    -- Materialized, as judged: the outcome reads chan_blocked and is_instrumented again, and an
    -- inlined sub-select would look them up twice.
    select w.*, snap.event_id as snap_event_id, snap.app_version as snap_version,
           snap.can_display, snap.authorization_status as snap_authorization,
           coalesce(snap.platform, i.platform, case w.provider when 'apns' then 'ios' else 'android' end) as send_platform,
           coalesce((select c.blocked from channel_states c
                      where c.app_id = w.app_id and c.occurred_at = snap.occurred_at
                        and c.snapshot_event_id = snap.event_id and c.channel_id = w.channel), false) as chan_blocked,
           coalesce(cf.displayed, false) as has_displayed,
           coalesce(cf.undisplayed, false) as has_undisplayed,
           coalesce(cf.opened, false) as has_open,
           (select max(p.sent_at) from sends p
             where p.app_id = w.app_id and p.provider = w.provider and p.token_key = w.token_key
               and p.sent_at < w.sent_at and pushledger_reason_class(p.status, p.reason) = 'token_invalid') as invalid_at
      from set_sends w
      left join lateral (
            select n.event_id, n.occurred_at, n.platform, n.app_version, n.can_display, n.authorization_status
              from settings_snapshots n
             where n.app_id = w.app_id and n.installation_id = w.installation_id and n.occurred_at <= w.sent_at
             order by n.occurred_at desc, n.received_at desc, n.event_id desc
             limit 1) snap on true
      left join installations i on i.app_id = w.app_id and i.installation_id = w.installation_id
      left join lateral pushledger_notification_confirmations(w.app_id, w.notification_id, p_as_of) cf on true
), judged as materialized (
    select f.*,
           f.invalid_at is not null and not exists (
               select 1 from token_registrations r
                where r.app_id = f.app_id and r.provider = f.provider and r.token_key = f.token_key
                  and r.occurred_at > f.invalid_at and r.occurred_at <= f.sent_at) as to_invalid,
           exists (select 1 from instrumented_slices_daily sl
                    where sl.app_id = f.app_id and sl.day = pushledger_day(f.sent_at) and sl.platform = f.send_platform
                      and sl.app_version is not distinct from f.snap_version) as is_instrumented
      from facts f
)
select j.app_id, j.event_id, j.notification_id, j.installation_id, j.resolved_by,
       j.sent_at, pushledger_day(j.sent_at), j.provider, j.channel, j.campaign,
       j.status, j.reason, pushledger_reason_class(j.status, j.reason),
       pushledger_reason_class(j.status, j.reason) is not distinct from 'token_invalid', j.to_invalid,
       j.send_platform, j.snap_version, j.snap_event_id,
       pushledger_display_state(j.snap_event_id is not null, j.can_display),
       j.snap_authorization,
       j.chan_blocked, j.is_instrumented,
       j.has_open, j.has_displayed, j.has_undisplayed,
       pushledger_judge_send(j.status, j.has_open, j.has_displayed, j.has_undisplayed, j.sent_at, p_as_of, p_window,
                             pushledger_display_state(j.snap_event_id is not null, j.can_display),
                             j.chan_blocked, j.installation_id is not null, j.is_instrumented)
  from judged j;
end
$$;

-- The sends whose only new inputs are receipts or opens of their notification (scope 1), a
-- new instrumented slice of their day, or the passing of time (scope 0) keep every other fact
-- they were judged on: they are judged again from their send_outcomes rows (the session's
-- table rollup_old), with their confirmations looked up again (scope 1) and their slice's
-- instrumentation read again, without the look-ups of the sends, snapshots, channels and
-- tokens. The scopes: the session's table rollup_keys (app_id, sent_at, event_id, scope).
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
           case when k.scope = 1 then coalesce(cf.undisplayed, false) else o.received_undisplayed end as now_undisplayed,
           case when k.scope = 1 then coalesce(cf.opened, false) else o.opened end as now_opened,
           exists (select 1 from instrumented_slices_daily sl
                    where sl.app_id = o.app_id and sl.day = o.day and sl.platform = o.platform
                      and sl.app_version is not distinct from o.app_version) as now_instrumented
      from rollup_keys k
      join rollup_old o on o.app_id = k.app_id and o.sent_at = k.sent_at and o.event_id = k.event_id
      left join lateral (select * from pushledger_notification_confirmations(o.app_id, o.notification_id, p_as_of)
                          where k.scope = 1) cf on true
     where k.scope < 2
)
select f.app_id, f.sent_at, f.event_id, f.day, f.notification_id, f.installation_id, f.provider, f.channel,
       f.campaign, f.status, f.reason, f.reason_class, f.token_invalid, f.to_invalid_token, f.platform,
       f.app_version, f.display_state, f.channel_blocked, f.now_instrumented, f.now_opened, f.now_displayed,
       f.now_undisplayed,
       pushledger_judge_send(f.status, f.now_opened, f.now_displayed, f.now_undisplayed, f.sent_at, p_as_of, p_window,
                             f.display_state, f.channel_blocked, f.installation_id is not null, f.now_instrumented)
  from facts f;
end
$$;
