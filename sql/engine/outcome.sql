-- The outcome rules of one send (metrics.md "Outcome of one send attempt", "Why a send is
-- unconfirmed", "Delivery latency"), each written once, and the one projection of a classified
-- send (pushledger_classified) that every classification path (sql/engine/classify.sql) ends
-- with. The paths gather a send's facts (pushledger_send_facts, sql/migrations/0015_send_facts.sql);
-- these functions judge them.

-- A send's display state from its as-of snapshot (metrics.md "Display state of an installation
-- at a time T"): unknown without one. Inlined like the judgement.
-- Reads nothing; writes nothing.
create or replace function pushledger_display_state(p_has_snapshot boolean, p_can_display boolean)
returns text
language sql immutable parallel safe as $$
select case when not p_has_snapshot then 'unknown' when p_can_display then 'can_display' else 'cannot_display' end
$$;

-- The platform a provider implies when no installation tells (metrics.md "Receipts"; Swift's
-- PushProvider.impliedPlatform).
-- Reads nothing; writes nothing.
create or replace function pushledger_provider_platform(p_provider text)
returns text
language sql immutable parallel safe as $$
select case p_provider when 'apns' then 'ios' when 'webpush' then 'web' else 'android' end
$$;

-- Whether a send can confirm (metrics.md "Which sends can confirm", the one table in SQL; Swift's
-- is PushLedgerRules.Confirmability, the rulebook holds the two equal): 'yes', 'no', or
-- 'background' (an APNs background push: yes while its slice reports background receipts).
-- push_type and mutable_content are read for APNs, message_kind for FCM; absent fields judge
-- the send as in v1.2.
-- Reads nothing; writes nothing.
create or replace function pushledger_send_can_confirm(
    p_provider text, p_push_type text, p_mutable_content boolean, p_message_kind text)
returns text
language sql immutable parallel safe as $$
select case
    when p_provider = 'apns' then
        case
            when p_push_type = 'background' then 'background'
            when p_push_type = 'voip' then 'yes'
            when p_push_type in ('liveactivity', 'location', 'complication', 'fileprovider', 'mdm', 'pushtotalk',
                                 'widgets') then 'no'
            when p_mutable_content = false then 'no'
            else 'yes'
        end
    when p_provider = 'fcm' and p_message_kind in ('notification', 'hybrid') then 'no'
    else 'yes'
end
$$;

-- Whether a send is a notification, so that rules 5 and 6 (blocked by the app's or the
-- channel's setting) apply to it: the table's last column.
-- Reads nothing; writes nothing.
create or replace function pushledger_send_is_notification(p_provider text, p_push_type text)
returns boolean
language sql immutable parallel safe as $$
select not (p_provider = 'apns' and p_push_type is not null
            and p_push_type in ('background', 'voip', 'location', 'complication', 'fileprovider', 'mdm', 'pushtotalk',
                                'widgets'))
$$;

-- A background push judged unconfirmable only because its slice reported no background
-- receipt: a wider window whose slice reported one judges it again.
-- Reads nothing; writes nothing.
create or replace function pushledger_unconfirmable_for_background(
    p_outcome text, p_provider text, p_push_type text, p_background_instrumented boolean)
returns boolean
language sql immutable parallel safe as $$
select p_outcome = 'unconfirmable' and not p_background_instrumented
   and pushledger_send_can_confirm(p_provider, p_push_type, null, null) = 'background'
$$;

drop function if exists pushledger_judge_send(integer, boolean, boolean, boolean, timestamptz, timestamptz, interval,
                                              text, boolean, boolean, boolean);

-- The judgement of one send from its facts: metrics.md "Outcome of one send attempt", rules
-- 1-9 in order with rule 7 1/2 ("Which sends can confirm"), the one place they are written. The
-- set-based engine below and the per-send path of the incremental refresh
-- (sql/engine/classify.sql) both call it; a plain SQL function, so the planner inlines it into
-- either query. Stable, not immutable: timestamptz minus interval is stable, and the planner
-- inlines no immutable function whose body is not.
-- Reads nothing; writes nothing.
create or replace function pushledger_judge_send(
    p_status integer, p_opened boolean, p_displayed boolean, p_undisplayed boolean,
    p_sent_at timestamptz, p_as_of timestamptz, p_window interval,
    p_display_state text, p_channel_blocked boolean, p_installation_known boolean, p_instrumented boolean,
    p_provider text, p_push_type text, p_mutable_content boolean, p_message_kind text,
    p_background_instrumented boolean)
returns text
language sql stable parallel safe as $$
select case
    when p_status not between 200 and 299 then 'rejected'
    when p_opened then 'opened'
    when p_displayed then 'received'
    when not p_undisplayed and p_sent_at > p_as_of - p_window then 'pending'
    when p_display_state = 'cannot_display' and pushledger_send_is_notification(p_provider, p_push_type)
        then 'blocked_app'
    when p_display_state <> 'unknown' and p_channel_blocked and pushledger_send_is_notification(p_provider, p_push_type)
        then 'blocked_channel'
    when p_undisplayed then 'received'
    when pushledger_send_can_confirm(p_provider, p_push_type, p_mutable_content, p_message_kind) = 'no'
        or (pushledger_send_can_confirm(p_provider, p_push_type, p_mutable_content, p_message_kind) = 'background'
            and not p_background_instrumented) then 'unconfirmable'
    when p_display_state = 'unknown' or not p_installation_known or not p_instrumented then 'unattributed'
    else 'unconfirmed'
end
$$;

-- A send whose cause metrics.md "Why a send is unconfirmed" gives: an unconfirmed one, and one
-- unattributed only because its slice reported no receipt that day, or a background push
-- unconfirmable only because its slice reported no background receipt that day, with a known
-- state (a report over a wider window may judge either unconfirmed: the rollups keep their
-- causes apart, as *_uninstrumented and *_background).
-- Reads nothing; writes nothing.
drop function if exists pushledger_has_cause(text, text, boolean, boolean);
create or replace function pushledger_has_cause(
    p_outcome text, p_display_state text, p_installation_known boolean, p_instrumented boolean,
    p_provider text, p_push_type text, p_background_instrumented boolean)
returns boolean
language sql immutable parallel safe as $$
-- p_outcome once: the planner inlines a SQL function only if an argument as costly as the
-- judgement's whole expression is read once in its body (else one call a send, ~5 µs each).
select case p_outcome
           when 'unconfirmed' then true
           when 'unattributed' then p_display_state <> 'unknown' and p_installation_known and not p_instrumented
           when 'unconfirmable' then
               pushledger_unconfirmable_for_background('unconfirmable', p_provider, p_push_type,
                                                       p_background_instrumented)
               and p_display_state <> 'unknown' and p_installation_known
           else false
       end
$$;

-- Whether a receipt of notification p_notification at p_at is one of a background push (a slice
-- that reported one has background receipts instrumented): a send of its notification with
-- push_type background, at or before p_as_of and at most pushledger_confirmation_lookback()
-- before the receipt (the bound lets the set-based engine read a window's background pushes
-- by one range read). A look-up by sends_notification, for the paths that read few receipts:
-- one row, read through a lateral join, so the planner inlines it (a scalar SQL function with
-- a sub-select is called once a receipt instead).
-- Reads sends; writes nothing.
drop function if exists pushledger_is_background_receipt(text, uuid, timestamptz, timestamptz);
create or replace function pushledger_background_receipt(
    p_app text, p_notification uuid, p_at timestamptz, p_as_of timestamptz)
returns table (background boolean)
language sql stable as $$
select exists (select 1 from sends b
                where b.app_id = p_app and b.notification_id = p_notification and b.push_type = 'background'
                  and b.sent_at <= p_as_of and b.sent_at >= p_at - pushledger_confirmation_lookback())
$$;

-- The latency bucket of a received or opened send (metrics.md "Delivery latency"): its earliest
-- receipt's time minus its sent_at, 0 when negative; null without a receipt.
-- Reads nothing; writes nothing.
create or replace function pushledger_latency_bucket(p_sent_at timestamptz, p_first_receipt_at timestamptz)
returns text
language sql immutable parallel safe as $$
select case
    when p_first_receipt_at is null then null
    when p_first_receipt_at - p_sent_at < interval '10 seconds' then 'lt_10s'
    when p_first_receipt_at - p_sent_at < interval '1 minute' then 'lt_1m'
    when p_first_receipt_at - p_sent_at < interval '10 minutes' then 'lt_10m'
    when p_first_receipt_at - p_sent_at < interval '1 hour' then 'lt_1h'
    when p_first_receipt_at - p_sent_at < interval '6 hours' then 'lt_6h'
    when p_first_receipt_at - p_sent_at < interval '24 hours' then 'lt_24h'
    else 'ge_24h'
end
$$;

-- Every telemetry event of p_app in (p_after, p_to] as a sign of life of its installation
-- (metrics.md "Why a send is unconfirmed"): kind settings, receipt (notification_received or
-- _opened, with its notification) or other; force_stopped from a snapshot. One SQL statement,
-- inlined into the caller's query, so the caller's conditions on installation_id and time reach
-- each table's indexes. pushledger_first_sign_of_life reads the same tables for one
-- installation, the first row of each.
-- Reads settings_snapshots, notification_receipts, notification_opens, permission_prompts,
-- experiment_exposures, token_registrations; writes nothing.
create or replace function pushledger_life_events(p_app text, p_after timestamptz, p_to timestamptz)
returns table (installation_id uuid, occurred_at timestamptz, received_at timestamptz, event_id uuid, kind text,
               notification_id uuid, force_stopped boolean)
language sql stable as $$
    select n.installation_id, n.occurred_at, n.received_at, n.event_id, 'settings', null::uuid,
           n.force_stopped_before_start
      from settings_snapshots n
     where n.app_id = p_app and n.occurred_at > p_after and n.occurred_at <= p_to
    union all
    select r.installation_id, r.occurred_at, r.received_at, r.event_id, 'receipt', r.notification_id, null
      from notification_receipts r
     where r.app_id = p_app and r.occurred_at > p_after and r.occurred_at <= p_to
    union all
    select o.installation_id, o.occurred_at, o.received_at, o.event_id, 'receipt', o.notification_id, null
      from notification_opens o
     where o.app_id = p_app and o.occurred_at > p_after and o.occurred_at <= p_to
    union all
    select p.installation_id, p.occurred_at, p.received_at, p.event_id, 'other', null, null
      from permission_prompts p
     where p.app_id = p_app and p.occurred_at > p_after and p.occurred_at <= p_to
    union all
    select e.installation_id, e.occurred_at, e.received_at, e.event_id, 'other', null, null
      from experiment_exposures e
     where e.app_id = p_app and e.occurred_at > p_after and e.occurred_at <= p_to
    union all
    select t.installation_id, t.occurred_at, t.received_at, t.event_id, 'other', null, null
      from token_registrations t
     where t.app_id = p_app and t.occurred_at > p_after and t.occurred_at <= p_to
$$;

-- The first sign of life of an installation after p_after (metrics.md "Why a send is
-- unconfirmed"): its earliest telemetry event of any type in (p_after, p_as_of], ties broken by
-- received_at, then event_id. kind: settings, receipt (notification_received or _opened), other.
-- Each table by its (app, installation, time) index, the first row only; plpgsql, so that no
-- caller's plan (the set-based engine turns nested loops off) turns the look-ups into scans.
-- Reads settings_snapshots, notification_receipts, notification_opens, permission_prompts,
-- experiment_exposures, token_registrations; writes nothing.
drop function if exists pushledger_first_sign_of_life(text, uuid, timestamptz, timestamptz);
create or replace function pushledger_first_sign_of_life(
    p_app text, p_installation uuid, p_after timestamptz, p_as_of timestamptz)
returns table (occurred_at timestamptz, kind text, notification_id uuid, force_stopped boolean)
language plpgsql stable as $$
begin
return query
select l.occurred_at, l.kind, l.notification_id, l.force_stopped
  from ((select n.occurred_at, n.received_at, n.event_id, 'settings' as kind, null::uuid as notification_id,
                n.force_stopped_before_start as force_stopped
           from settings_snapshots n
          where n.app_id = p_app and n.installation_id = p_installation and n.occurred_at > p_after
              and n.occurred_at <= p_as_of
          order by n.occurred_at, n.received_at, n.event_id limit 1)
        union all
        (select r.occurred_at, r.received_at, r.event_id, 'receipt', r.notification_id, null
           from notification_receipts r
          where r.app_id = p_app and r.installation_id = p_installation and r.occurred_at > p_after
              and r.occurred_at <= p_as_of
          order by r.occurred_at, r.received_at, r.event_id limit 1)
        union all
        (select o.occurred_at, o.received_at, o.event_id, 'receipt', o.notification_id, null
           from notification_opens o
          where o.app_id = p_app and o.installation_id = p_installation and o.occurred_at > p_after
              and o.occurred_at <= p_as_of
          order by o.occurred_at, o.received_at, o.event_id limit 1)
        union all
        (select p.occurred_at, p.received_at, p.event_id, 'other', null, null
           from permission_prompts p
          where p.app_id = p_app and p.installation_id = p_installation and p.occurred_at > p_after
              and p.occurred_at <= p_as_of
          order by p.occurred_at, p.received_at, p.event_id limit 1)
        union all
        (select e.occurred_at, e.received_at, e.event_id, 'other', null, null
           from experiment_exposures e
          where e.app_id = p_app and e.installation_id = p_installation and e.occurred_at > p_after
              and e.occurred_at <= p_as_of
          order by e.occurred_at, e.received_at, e.event_id limit 1)
        union all
        (select t.occurred_at, t.received_at, t.event_id, 'other', null, null
           from token_registrations t
          where t.app_id = p_app and t.installation_id = p_installation and t.occurred_at > p_after
              and t.occurred_at <= p_as_of
          order by t.occurred_at, t.received_at, t.event_id limit 1)) l
 order by l.occurred_at, l.received_at, l.event_id
 limit 1;
end
$$;

-- The cause of a send with a cause from its first sign of life (metrics.md "Why a send is
-- unconfirmed", rules 1-5 in order, the one place they are written): p_life_kind null when
-- there is none; p_superseded by pushledger_replaces (a look-up per send in
-- pushledger_is_superseded, one read for a window in sql/engine/classify.sql). Inlined into
-- either caller.
-- Reads nothing; writes nothing.
create or replace function pushledger_cause_rule(
    p_life_kind text, p_superseded boolean, p_force_stopped boolean, p_life_at timestamptz, p_expires_at timestamptz)
returns text
language sql stable parallel safe as $$
select case
    when p_life_kind is null then 'device_inactive'
    when p_superseded then 'superseded'
    when p_life_kind = 'settings' and p_force_stopped then 'app_stopped'
    when p_life_at > p_expires_at then 'expired'
    else 'unexplained'
end
$$;

-- Whether an attempt S' (p_other_*) of the notification a send S's first sign of life received
-- could have replaced S at the provider (metrics.md cause rule 1): accepted, later than S and
-- at or before as_of, and both APNs sends (one pending notification per app and device) or
-- sharing a collapse id. The callers match S' to the notification and installation.
-- Reads nothing; writes nothing.
create or replace function pushledger_replaces(
    p_sent_at timestamptz, p_provider text, p_collapse_id text, p_as_of timestamptz,
    p_other_status integer, p_other_sent_at timestamptz, p_other_provider text, p_other_collapse_id text)
returns boolean
language sql stable parallel safe as $$
select p_other_status between 200 and 299 and p_other_sent_at > p_sent_at and p_other_sent_at <= p_as_of
   and ((p_provider = 'apns' and p_other_provider = 'apns') or p_other_collapse_id = p_collapse_id)
$$;

-- Whether a send's first sign of life is a receipt of another notification with an attempt, to
-- the same installation, that replaces it (pushledger_replaces). An index look-up of its own,
-- for the paths that judge a few sends; plpgsql, so the callers' join settings (the set-based
-- engine turns nested loops off) never reach it.
-- Reads sends; writes nothing.
drop function if exists pushledger_is_superseded(text, uuid, uuid, text, text, timestamptz, timestamptz, text, uuid);
create or replace function pushledger_is_superseded(
    p_app text, p_installation uuid, p_notification uuid, p_provider text, p_collapse_id text,
    p_sent_at timestamptz, p_as_of timestamptz, p_life_kind text, p_life_notification uuid)
returns boolean
language plpgsql stable as $$
begin
    if p_life_kind is distinct from 'receipt' or p_life_notification = p_notification then
        return false;
    end if;
    return exists (
        select 1 from sends s
         where s.app_id = p_app and s.notification_id = p_life_notification and s.installation_id = p_installation
           and s.sent_at > p_sent_at
           and pushledger_replaces(p_sent_at, p_provider, p_collapse_id, p_as_of,
                                   s.status, s.sent_at, s.provider, s.collapse_id));
end
$$;

-- The cause of one send with a cause, with its first sign of life: its time, and its
-- notification when it is a receipt. By index look-ups of its own, for the paths that judge a
-- few sends (sql/engine/classify.sql); the set-based engine finds first signs of life for a
-- whole window at once. plpgsql, for the same reason as pushledger_is_superseded.
-- Reads pushledger_first_sign_of_life, pushledger_is_superseded; writes nothing.
drop function if exists pushledger_send_cause(text, uuid, uuid, text, text, timestamptz, timestamptz, timestamptz);
create or replace function pushledger_send_cause(
    p_app text, p_installation uuid, p_notification uuid, p_provider text, p_collapse_id text,
    p_expires_at timestamptz, p_sent_at timestamptz, p_as_of timestamptz)
returns table (cause text, first_life_at timestamptz, first_life_notification uuid)
language plpgsql stable as $$
declare
    v_life record;
begin
    select * into v_life from pushledger_first_sign_of_life(p_app, p_installation, p_sent_at, p_as_of);
    return query
    select pushledger_cause_rule(v_life.kind,
                                 pushledger_is_superseded(p_app, p_installation, p_notification, p_provider,
                                                          p_collapse_id,
                                                          p_sent_at, p_as_of, v_life.kind, v_life.notification_id),
                                 v_life.force_stopped, v_life.occurred_at, p_expires_at),
           v_life.occurred_at, case when v_life.kind = 'receipt' then v_life.notification_id end;
end
$$;

-- A notification's receipts and opens at or before p_as_of, by index (however early: the
-- engine's look-back bound is one no stored receipt can pass): the per-send paths' confirmations
-- (sql/engine/classify.sql).
-- A plain SQL function, inlined into the look-ups.
-- Reads notification_receipts, notification_opens; writes nothing.
drop function if exists pushledger_notification_confirmations(text, uuid, timestamptz);
create or replace function pushledger_notification_confirmations(p_app text, p_notification uuid, p_as_of timestamptz)
returns table (displayed boolean, undisplayed boolean, opened boolean, first_at timestamptz)
language sql stable as $$
select bool_or(x.is_receipt and x.displayed is distinct from false),
       bool_or(x.is_receipt and x.displayed = false),
       bool_or(not x.is_receipt),
       min(x.occurred_at)
  from (select true as is_receipt, r.displayed, r.occurred_at from notification_receipts r
         where r.app_id = p_app and r.notification_id = p_notification and r.occurred_at <= p_as_of
        union all
        select false, null, o.occurred_at from notification_opens o
         where o.app_id = p_app and o.notification_id = p_notification and o.occurred_at <= p_as_of) x
$$;

-- The classified send of one send's facts: its display state, outcome (pushledger_judge_send),
-- cause when it has one, latency bucket and reason class. The cause is p_cause, p_first_life_at
-- and p_first_life_notification when p_causes_given (the set-based engine finds a window's at
-- once), else pushledger_send_cause's (by look-ups of its own: few sends have one, and a hash
-- join would read every telemetry row of the window's installations). The one projection of
-- a classified send: every path of sql/engine/classify.sql ends with it,
-- `cross join lateral pushledger_classified(facts, ...)`.
-- A plain SQL function, so the planner inlines it into the caller's query (the fields of the
-- facts row become the caller's columns).
-- Reads pushledger_send_cause (only for a send with a cause, unless given); writes nothing.
drop function if exists pushledger_classified(pushledger_send_facts, timestamptz, interval);
create or replace function pushledger_classified(
    f pushledger_send_facts, p_as_of timestamptz, p_window interval, p_causes_given boolean default false,
    p_cause text default null, p_first_life_at timestamptz default null, p_first_life_notification uuid default null)
returns setof pushledger_classified_send
language sql stable as $$
select f.app_id, f.event_id, f.notification_id, f.installation_id, f.resolved_by,
       f.sent_at, pushledger_day(f.sent_at), f.provider, f.channel, f.campaign,
       f.status, f.reason, pushledger_reason_class(f.provider, f.status, f.reason),
       pushledger_reason_class(f.provider, f.status, f.reason) is not distinct from 'token_invalid', f.to_invalid_token,
       f.platform, f.app_version, f.snapshot_event_id, j.display_state, f.authorization_status,
       f.channel_blocked, f.instrumented, f.opened, f.received_displayed, f.received_undisplayed, j.outcome,
       f.os_version, f.sdk_int, f.standby_bucket, f.background_restricted,
       f.ignoring_battery_optimizations, f.low_power_mode,
       c.cause, c.first_life_at, c.first_life_notification,
       case when j.outcome in ('received', 'opened') then pushledger_latency_bucket(f.sent_at, f.first_receipt_at) end,
       f.push_type, f.mutable_content, f.message_kind, f.background_instrumented, f.browser, f.push_service
  from (select o.*, pushledger_has_cause(o.outcome, o.display_state, f.installation_id is not null, f.instrumented,
                                         f.provider, f.push_type, f.background_instrumented) as has_cause
          from (select d.display_state,
                       pushledger_judge_send(f.status, f.opened, f.received_displayed, f.received_undisplayed,
                                             f.sent_at, p_as_of, p_window, d.display_state, f.channel_blocked,
                                             f.installation_id is not null, f.instrumented, f.provider, f.push_type,
                                             f.mutable_content, f.message_kind, f.background_instrumented)
                           as outcome
                  from (select pushledger_display_state(f.snapshot_event_id is not null, f.can_display)
                                   as display_state) d) o) j
  left join lateral (select * from pushledger_send_cause(f.app_id, f.installation_id, f.notification_id, f.provider,
                                                         f.collapse_id, f.expires_at, f.sent_at, p_as_of)
                      where not p_causes_given and j.has_cause
                     union all
                     select p_cause, p_first_life_at, p_first_life_notification
                      where p_causes_given and j.has_cause) c on true
$$;
