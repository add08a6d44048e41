-- Outcome engine, second version: same definitions as 0004, planned for volume (found by a
-- 100k-send run: 18 s -> 13 s with 13 monthly partitions on a loaded machine). The
-- instrumented slices are computed once and hash-joined instead of being re-scanned per
-- send; the as-of snapshot is looked up in the last 31 days first; JIT is off. (0004 is
-- applied on shared databases, so the change comes as a new migration.)

create or replace function pushledger_classified_sends(
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
language sql stable
-- JIT compiles ~120 expressions per call and loses more than it wins on these lookups
-- (24 s vs 10 s on 100k sends in a loaded test).
set jit = off
as $$
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
), instrumented_slices as materialized (
    -- Keyed so the lookup hashes: a null app_version is its own slice (chr(1) never is one).
    select distinct r.platform, coalesce(r.app_version, chr(1)) as version_key
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
            -- Looked up in the last 31 days first (run-time pruning probes one or two monthly
            -- partitions); only when none is there does the second branch walk the older ones
            -- (Append runs its branches in order and the limit stops it early).
            select * from (
                (select n.event_id, n.platform, n.app_version, n.can_display, n.authorization_status, n.occurred_at
                   from settings_snapshots n
                  where n.app_id = s.app_id and n.installation_id = s.installation_id
                    and n.occurred_at <= s.sent_at and n.occurred_at > s.sent_at - interval '31 days'
                  order by n.occurred_at desc, n.received_at desc, n.event_id desc
                  limit 1)
                union all
                (select n.event_id, n.platform, n.app_version, n.can_display, n.authorization_status, n.occurred_at
                   from settings_snapshots n
                  where n.app_id = s.app_id and n.installation_id = s.installation_id
                    and n.occurred_at <= s.sent_at - interval '31 days'
                  order by n.occurred_at desc, n.received_at desc, n.event_id desc
                  limit 1)
            ) candidates
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
           sl.platform is not null as is_instrumented
      from facts f
      left join instrumented_slices sl
        on sl.platform = f.send_platform and sl.version_key = coalesce(f.snap_version, chr(1))
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
