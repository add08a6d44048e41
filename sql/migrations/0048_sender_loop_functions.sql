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
