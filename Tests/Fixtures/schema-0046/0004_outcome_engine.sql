-- The outcome engine: metrics.md "Outcome of one send attempt" as set-based SQL.

-- Finds the latest earlier send result that invalidated a token (partial: few rows).
create index sends_token_invalid on sends (app_id, provider, token_key, sent_at)
    where pushledger_reason_class(status, reason) = 'token_invalid';

-- Every send attempt of p_app with sent_at in [p_from, p_to) (and not after p_as_of), with
-- its outcome by the first matching rule of metrics.md (1 rejected, 2 opened, 3 received,
-- 4 pending, 5 blocked_app, 6 blocked_channel, 7 received (displayed: false),
-- 8 unattributed, 9 unconfirmed) and the facts the rules used.
-- Receipt instrumentation is judged from notification_received events occurring in
-- [p_from, p_to): a daily rollup calls this per day, so a day is its own window.
create function pushledger_classified_sends(
    p_app text, p_from timestamptz, p_to timestamptz,
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (
    app_id text, event_id uuid, notification_id uuid, installation_id uuid, resolved_by text,
    sent_at timestamptz, day date, provider text, channel text, campaign text,
    status integer, reason text, reason_class text, token_invalid boolean, to_invalid_token boolean,
    platform text, app_version text, snapshot_event_id uuid,
    display_state text,        -- unknown | can_display | cannot_display (app level, as of sent_at)
    authorization_status text, -- of the as-of snapshot (iOS; provisional is reported apart)
    channel_blocked boolean, instrumented boolean,
    opened boolean, received_displayed boolean, received_undisplayed boolean,
    outcome text)
language sql stable as $$
with window_sends as (
    select s.* from sends s
     where s.app_id = p_app and s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of
), receipts as (
    -- Every receipt of these notifications at or before as_of, however late it came.
    select r.notification_id,
           bool_or(r.displayed is distinct from false) as displayed,
           bool_or(r.displayed = false) as undisplayed
      from notification_receipts r
     where r.app_id = p_app and r.occurred_at <= p_as_of
       and r.notification_id in (select w.notification_id from window_sends w)
     group by r.notification_id
), opens as (
    select distinct o.notification_id
      from notification_opens o
     where o.app_id = p_app and o.occurred_at <= p_as_of
       and o.notification_id in (select w.notification_id from window_sends w)
), instrumented_slices as (
    select distinct r.platform, r.app_version
      from notification_receipts r
     where r.app_id = p_app and r.occurred_at >= p_from and r.occurred_at < p_to
       and r.occurred_at <= p_as_of
), facts as (
    select s.*,
           snap.event_id as snap_event_id, snap.platform as snap_platform, snap.app_version as snap_version,
           snap.can_display, snap.authorization_status as snap_authorization,
           coalesce(snap.platform, i.platform, case s.provider when 'apns' then 'ios' else 'android' end)
               as send_platform,
           coalesce(ch.blocked, false) as chan_blocked,
           coalesce(rc.displayed, false) as has_displayed,
           coalesce(rc.undisplayed, false) as has_undisplayed,
           op.notification_id is not null as has_open,
           inv.invalid_at
      from window_sends s
      left join installations i on i.app_id = s.app_id and i.installation_id = s.installation_id
      left join lateral (
            -- The as-of snapshot: latest at or before sent_at; ties by received_at, event_id.
            select n.event_id, n.platform, n.app_version, n.can_display, n.authorization_status, n.occurred_at
              from settings_snapshots n
             where n.app_id = s.app_id and n.installation_id = s.installation_id and n.occurred_at <= s.sent_at
             order by n.occurred_at desc, n.received_at desc, n.event_id desc
             limit 1) snap on true
      left join lateral (
            select bool_or(c.blocked) as blocked
              from channel_states c
             where c.app_id = s.app_id and c.installation_id = s.installation_id and c.channel_id = s.channel
               and c.occurred_at = snap.occurred_at and c.snapshot_event_id = snap.event_id) ch on true
      left join receipts rc on rc.notification_id = s.notification_id
      left join opens op on op.notification_id = s.notification_id
      left join lateral (
            -- The latest earlier result that marked this token invalid ...
            select max(p.sent_at) as invalid_at
              from sends p
             where p.app_id = s.app_id and p.provider = s.provider and p.token_key = s.token_key
               and p.sent_at < s.sent_at
               and pushledger_reason_class(p.status, p.reason) = 'token_invalid') inv on true
), judged as (
    select f.*,
           f.invalid_at is not null and not exists (
               -- ... not followed by a registration of the token at or before this send.
               select 1 from token_registrations r
                where r.app_id = f.app_id and r.provider = f.provider and r.token_key = f.token_key
                  and r.occurred_at > f.invalid_at and r.occurred_at <= f.sent_at) as to_invalid,
           exists (select 1 from instrumented_slices sl
                    where sl.platform = f.send_platform
                      and sl.app_version is not distinct from f.snap_version) as is_instrumented
      from facts f
)
select j.app_id, j.event_id, j.notification_id, j.installation_id, j.resolved_by,
       j.sent_at, pushledger_day(j.sent_at), j.provider, j.channel, j.campaign,
       j.status, j.reason, pushledger_reason_class(j.status, j.reason),
       pushledger_reason_class(j.status, j.reason) is not distinct from 'token_invalid', j.to_invalid,
       j.send_platform, j.snap_version, j.snap_event_id,
       case when j.snap_event_id is null then 'unknown'
            when j.can_display then 'can_display' else 'cannot_display' end,
       j.snap_authorization,
       j.chan_blocked, j.is_instrumented,
       j.has_open, j.has_displayed, j.has_undisplayed,
       case
           when j.status not between 200 and 299 then 'rejected'
           when j.has_open then 'opened'
           when j.has_displayed then 'received'
           when not j.has_undisplayed and j.sent_at > p_as_of - p_window then 'pending'
           when j.snap_event_id is not null and not j.can_display then 'blocked_app'
           when j.snap_event_id is not null and j.chan_blocked then 'blocked_channel'
           when j.has_undisplayed then 'received'
           when j.snap_event_id is null or j.installation_id is null or not j.is_instrumented then 'unattributed'
           else 'unconfirmed'
       end
  from judged j
$$;
