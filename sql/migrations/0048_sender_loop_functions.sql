-- The sender's loop: sends keep response_body, and the writer keeps the invalid-token feed
-- (token_invalidations, 0047) in the transaction that stores a result or a registration.

-- The earliest invalidating result of a token after p_registered_at (its latest registration;
-- null: never registered), read from the partial index sends_token_invalid (0004).
create function pushledger_first_invalidation(p_app text, p_provider text, p_token_key uuid, p_registered_at timestamptz)
returns table (sent_at timestamptz, status integer, reason text, unregistered_at timestamptz)
language sql stable as $$
    select s.sent_at, s.status, s.reason, s.unregistered_at from sends s
     where s.app_id = p_app and s.provider = p_provider and s.token_key = p_token_key
       and pushledger_reason_class(s.status, s.reason) = 'token_invalid'
       and (p_registered_at is null or s.sent_at > p_registered_at)
     order by s.sent_at, s.event_id
     limit 1
$$;

-- The feed rows of the tokens a staged batch touched: tokens of fresh invalidating results
-- (p_sends) and of fresh registrations (p_registrations), recomputed from what is stored.
-- A token is invalid now while an invalidating result has no later registration; its
-- invalidated_at is the earliest such result (telemetry-v1.md). A row gets a new feed position
-- only when the token becomes invalid anew (no row, or a later invalidated_at: a registration
-- came between); a late, earlier result only corrects the row in place.
--
-- Concurrency: both kinds of input upsert the token's push_tokens row earlier in the same
-- transaction, so two writers touching one token are serialized on that row lock, and this
-- statement (READ COMMITTED: a new snapshot) of the second one sees what the first committed.
create function pushledger_store_staged_invalidations(p_sends boolean, p_registrations boolean)
returns void
language plpgsql as $$
begin
    if not p_registrations and not (p_sends and exists (
            select 1 from stage_sends st where pushledger_reason_class(st.status, st.reason) = 'token_invalid')) then
        return;
    end if;
    with touched as (
        select st.app_id, st.provider, md5(st.token)::uuid as token_key
          from stage_sends st join stage_fresh using (seq)
         where p_sends and pushledger_reason_class(st.status, st.reason) = 'token_invalid'
        union
        select t.app_id, t.provider, md5(t.token)::uuid
          from stage_telemetry t join stage_fresh using (seq)
         where p_registrations and t.type = 'push_token'
    ), state as (
        select k.app_id, k.provider, k.token_key, p.token, inv.sent_at, inv.status, inv.reason, inv.unregistered_at
          from touched k
          join push_tokens p using (app_id, provider, token_key)
          left join lateral pushledger_first_invalidation(k.app_id, k.provider, k.token_key, p.last_registered_at) inv
            on true
    ), valid_again as (
        delete from token_invalidations t using state s
         where s.sent_at is null and t.app_id = s.app_id and t.provider = s.provider and t.token_key = s.token_key
    )
    insert into token_invalidations as t (app_id, provider, token_key, token, invalidated_at, status, reason,
                                          unregistered_at, feed_xid)
    select app_id, provider, token_key, token, sent_at, status, reason, unregistered_at, pg_current_xact_id()
      from state
     where sent_at is not null
     order by app_id, provider, token_key
    on conflict (app_id, provider, token_key) do update set
        feed_xid = case when excluded.invalidated_at > t.invalidated_at then excluded.feed_xid else t.feed_xid end,
        invalidated_at = excluded.invalidated_at, status = excluded.status, reason = excluded.reason,
        unregistered_at = excluded.unregistered_at
     where (t.invalidated_at, t.status, t.reason, t.unregistered_at)
           is distinct from (excluded.invalidated_at, excluded.status, excluded.reason, excluded.unregistered_at);
end
$$;

-- Sends of the staged batch (p_sends: any staged), and re-resolution of earlier sends when
-- registrations were staged (p_registrations). As in 0045, plus response_body and the
-- invalid-token feed.
create or replace function pushledger_store_staged_sends(p_sends boolean, p_registrations boolean)
returns void
language plpgsql as $$
begin
    if p_sends then
        -- Sends without installation_id take the installation of the token's latest registration
        -- at or before sent_at (registrations of this batch were stored just before).
        insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by,
                           channel, campaign, sent_at, status, reason, apns_id, unregistered_at, priority,
                           push_type, environment, latency_ms, received_at, response_body)
        select s.app_id, s.event_id, s.notification_id, s.provider, s.token,
               coalesce(s.installation_id, r.installation_id),
               case when s.installation_id is not null then 'explicit'
                    when r.installation_id is not null then 'token' else 'unresolved' end,
               s.channel, s.campaign, s.sent_at, s.status, s.reason, s.apns_id, s.unregistered_at, s.priority,
               s.push_type, s.environment, s.latency_ms, s.received_at, s.response_body
          from stage_sends s
          join stage_fresh using (seq)
          left join lateral (
                select r.installation_id from token_registrations r
                 where s.installation_id is null and r.app_id = s.app_id and r.provider = s.provider
                   and r.token_key = md5(s.token)::uuid and r.occurred_at <= s.sent_at
                 order by r.occurred_at desc, r.received_at desc, r.event_id desc
                 limit 1) r on true;
    end if;

    if p_registrations then
        -- Sends stored earlier without a registration (or before a later one) are re-resolved
        -- when a registration at or before their sent_at arrives late.
        with late as (
            select distinct t.app_id, t.provider, md5(t.token)::uuid as token_key, t.occurred_at
              from stage_telemetry t join stage_fresh using (seq)
             where t.type = 'push_token'
        ), candidates as (
            select s.app_id, s.sent_at, s.event_id, r.installation_id
              from sends s
              join late on s.app_id = late.app_id and s.provider = late.provider
                       and s.token_key = late.token_key and s.sent_at >= late.occurred_at
              cross join lateral (
                    select r.installation_id from token_registrations r
                     where r.app_id = s.app_id and r.provider = s.provider and r.token_key = s.token_key
                       and r.occurred_at <= s.sent_at
                     order by r.occurred_at desc, r.received_at desc, r.event_id desc
                     limit 1) r
             where s.resolved_by <> 'explicit' and s.installation_id is distinct from r.installation_id
        )
        update sends s set installation_id = c.installation_id, resolved_by = 'token'
          from candidates c
         where s.app_id = c.app_id and s.sent_at = c.sent_at and s.event_id = c.event_id;
    end if;

    if p_sends and exists (select 1 from stage_sends st
                        where pushledger_reason_class(st.status, st.reason) = 'token_invalid') then
        -- APNs 410, 400 BadDeviceToken, FCM UNREGISTERED: the token is invalid from that result on.
        insert into push_tokens as p (app_id, provider, token_key, token, installation_id, invalidated_at,
                                      invalidated_status, invalidated_reason, unregistered_at)
        select distinct on (s.app_id, s.provider, s.token_key)
               s.app_id, s.provider, s.token_key, s.token, s.installation_id, s.sent_at, s.status, s.reason,
               s.unregistered_at
          from sends s
          join (select st.app_id, st.sent_at, st.event_id
                  from stage_sends st join stage_fresh using (seq)
                 where pushledger_reason_class(st.status, st.reason) = 'token_invalid') fresh
            on s.app_id = fresh.app_id and s.sent_at = fresh.sent_at and s.event_id = fresh.event_id
         order by s.app_id, s.provider, s.token_key, s.sent_at desc, s.event_id desc
        on conflict (app_id, provider, token_key) do update set
            invalidated_at = greatest(p.invalidated_at, excluded.invalidated_at),
            invalidated_status = case when p.invalidated_at is null or excluded.invalidated_at >= p.invalidated_at
                                      then excluded.invalidated_status else p.invalidated_status end,
            invalidated_reason = case when p.invalidated_at is null or excluded.invalidated_at >= p.invalidated_at
                                      then excluded.invalidated_reason else p.invalidated_reason end,
            unregistered_at = case when p.invalidated_at is null or excluded.invalidated_at >= p.invalidated_at
                                   then coalesce(excluded.unregistered_at, p.unregistered_at) else p.unregistered_at end,
            installation_id = coalesce(p.installation_id, excluded.installation_id);
    end if;

    perform pushledger_store_staged_invalidations(p_sends, p_registrations);
end
$$;


-- One page of the invalid-token feed of an app: positions after (p_after_xid, p_after_provider,
-- p_after_key) and below p_horizon (pg_snapshot_xmin when the walk began), in position order.
-- installation_id: the installation the token last resolved to (its latest registration, else
-- the invalidating send's).
create function pushledger_invalid_tokens(
    p_app text, p_since timestamptz, p_after_xid xid8, p_after_provider text, p_after_key uuid,
    p_horizon xid8, p_limit integer)
returns table (provider text, token text, invalidated_at timestamptz, status integer, reason text,
               unregistered_at timestamptz, installation_id uuid, feed_xid xid8, token_key uuid)
language sql stable as $$
    select t.provider, t.token, t.invalidated_at, t.status, t.reason, t.unregistered_at, p.installation_id,
           t.feed_xid, t.token_key
      from token_invalidations t
      left join push_tokens p on p.app_id = t.app_id and p.provider = t.provider and p.token_key = t.token_key
     where t.app_id = p_app
       and (t.feed_xid, t.provider, t.token_key) > (p_after_xid, p_after_provider, p_after_key)
       and t.feed_xid < p_horizon
       and (p_since is null or t.invalidated_at >= p_since)
     order by t.feed_xid, t.provider, t.token_key
     limit p_limit
$$;

-- The feed's horizon: positions below it belong to finished transactions only.
create function pushledger_invalid_tokens_horizon()
returns xid8
language sql volatile as $$ select pg_snapshot_xmin(pg_current_snapshot()) $$;

-- Tokens already invalid when this migration runs enter the feed once, at this position.
insert into token_invalidations (app_id, provider, token_key, token, invalidated_at, status, reason,
                                 unregistered_at, feed_xid)
select p.app_id, p.provider, p.token_key, p.token, inv.sent_at, inv.status, inv.reason, inv.unregistered_at,
       pg_current_xact_id()
  from push_tokens p
  cross join lateral pushledger_first_invalidation(p.app_id, p.provider, p.token_key, p.last_registered_at) inv
 where p.invalidated_at is not null
on conflict do nothing;

-- The provider cross-check (metrics.md "Provider cross-check"): per FCM day in
-- [p_from, p_to) — a day in America/Los_Angeles, so its window is that day's local midnight to
-- the next — and, with p_by_campaign, per analytics label matched to campaign ('' for the
-- unlabeled entry and sends without a campaign). FCM's side: counts summed, percents weighted
-- by countMessagesAccepted over the entries that carry them. PushLedger's side: the outcome
-- counts of pushledger_silent_loss (0020) for provider fcm over the same window. A side
-- missing on a day is null, never dropped. Rates and gap_pp are left to the caller.
create function pushledger_provider_check(
    p_app text, p_from date, p_to date, p_by_campaign boolean default false,
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (
    day date, campaign text, fcm_entries bigint, count_messages_accepted bigint,
    delivered_pct double precision, pending_pct double precision, collapsed_pct double precision,
    dropped_too_many_pending_pct double precision, dropped_app_force_stopped_pct double precision,
    dropped_device_inactive_pct double precision, delivered_no_delay_pct double precision,
    sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint,
    blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint,
    token_invalid bigint, to_invalid_token bigint)
language sql stable as $$
with entries as (
    select f.day, case when p_by_campaign then f.analytics_label end as label,
           coalesce((f.entry #>> '{data,countMessagesAccepted}')::bigint, 0) as n,
           (f.entry #>> '{data,messageOutcomePercents,delivered}')::float8 as delivered,
           (f.entry #>> '{data,messageOutcomePercents,pending}')::float8 as pending,
           (f.entry #>> '{data,messageOutcomePercents,collapsed}')::float8 as collapsed,
           (f.entry #>> '{data,messageOutcomePercents,droppedTooManyPendingMessages}')::float8 as too_many,
           (f.entry #>> '{data,messageOutcomePercents,droppedAppForceStopped}')::float8 as force_stopped,
           (f.entry #>> '{data,messageOutcomePercents,droppedDeviceInactive}')::float8 as inactive,
           (f.entry #>> '{data,deliveryPerformancePercents,deliveredNoDelay}')::float8 as no_delay
      from fcm_delivery_data f
     where f.app_id = p_app and f.day >= p_from and f.day < p_to
), fcm as (
    select e.day, e.label, count(*) as entries, sum(e.n) as n,
           sum(e.n * e.delivered) / nullif(sum(e.n) filter (where e.delivered is not null), 0) as delivered,
           sum(e.n * e.pending) / nullif(sum(e.n) filter (where e.pending is not null), 0) as pending,
           sum(e.n * e.collapsed) / nullif(sum(e.n) filter (where e.collapsed is not null), 0) as collapsed,
           sum(e.n * e.too_many) / nullif(sum(e.n) filter (where e.too_many is not null), 0) as too_many,
           sum(e.n * e.force_stopped) / nullif(sum(e.n) filter (where e.force_stopped is not null), 0) as force_stopped,
           sum(e.n * e.inactive) / nullif(sum(e.n) filter (where e.inactive is not null), 0) as inactive,
           sum(e.n * e.no_delay) / nullif(sum(e.n) filter (where e.no_delay is not null), 0) as no_delay
      from entries e
     group by e.day, e.label
), ours as (
    select d.day as local_day, case when p_by_campaign then coalesce(s.campaign, '') end as label,
           s.sends, s.accepted, s.rejected, s.pending, s.opened, s.received, s.blocked_app, s.blocked_channel,
           s.unconfirmed, s.unattributed, s.token_invalid, s.to_invalid_token
      from (select g::date as day from generate_series(p_from::timestamp, p_to::timestamp - interval '1 day', interval '1 day') g) d
     cross join lateral pushledger_silent_loss(
           p_app, d.day::timestamp at time zone 'America/Los_Angeles',
           (d.day + 1)::timestamp at time zone 'America/Los_Angeles', p_as_of, p_window,
           case when p_by_campaign then '{provider,campaign}'::text[] else '{provider}'::text[] end) s
     where s.provider = 'fcm'
)
select coalesce(f.day, o.local_day), nullif(coalesce(f.label, o.label), ''), f.entries, f.n,
       f.delivered, f.pending, f.collapsed, f.too_many, f.force_stopped, f.inactive, f.no_delay,
       o.sends, o.accepted, o.rejected, o.pending, o.opened, o.received, o.blocked_app, o.blocked_channel,
       o.unconfirmed, o.unattributed, o.token_invalid, o.to_invalid_token
  from fcm f
  full join ours o on o.local_day = f.day and o.label is not distinct from f.label
 order by 1, 2 nulls first
$$;
