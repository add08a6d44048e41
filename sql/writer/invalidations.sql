-- The invalid-token feed's writer side: the writer keeps token_invalidations in the
-- transaction that stores an invalidating result or a registration (sql/writer/apply.sql calls
-- pushledger_store_batch_invalidations from pushledger_store_batch_sends).

-- The earliest invalidating result of a token after p_registered_at (its latest registration;
-- null: never registered), read from the partial index sends_token_invalid (sql/engine/rejection_class.sql).
create or replace function pushledger_first_invalidation(p_app text, p_provider text, p_token_key uuid,
                                                         p_registered_at timestamptz)
returns table (sent_at timestamptz, status integer, reason text, unregistered_at timestamptz)
language sql stable as $$
    select s.sent_at, s.status, s.reason, s.unregistered_at from sends s
     where s.app_id = p_app and s.provider = p_provider and s.token_key = p_token_key
       and pushledger_reason_class(s.provider, s.status, s.reason) = 'token_invalid'
       and (p_registered_at is null or s.sent_at > p_registered_at)
     order by s.sent_at, s.event_id
     limit 1
$$;

-- The feed rows of the tokens a batch touched: tokens of its fresh invalidating results (among
-- p_sends; p_invalid: there is one) and of its fresh registrations (p_registrations),
-- recomputed from what is stored.
-- A token is invalid now while an invalidating result has no later registration; its
-- invalidated_at is the earliest such result (telemetry-v1.md). A row gets a new feed position
-- only when the token becomes invalid anew (no row, or a later invalidated_at: a registration
-- came between); a late, earlier result only corrects the row in place.
--
-- Concurrency: both kinds of input upsert the token's push_tokens row earlier in the same
-- transaction, so two writers touching one token are serialized on that row lock, and this
-- statement (READ COMMITTED: a new snapshot) of the second one sees what the first committed.
create or replace function pushledger_store_batch_invalidations(
    p_sends pushledger_batch_send[], p_registrations pushledger_batch_telemetry[], p_invalid boolean)
returns void
language plpgsql as $$
begin
    if coalesce(cardinality(p_registrations), 0) = 0 and not p_invalid then
        return;
    end if;
    with touched as (
        select st.app_id, st.provider, md5(st.token)::uuid as token_key
          from unnest(p_sends) st
         where pushledger_reason_class(st.provider, st.status, st.reason) = 'token_invalid'
        union
        select t.app_id, t.provider, md5(t.token)::uuid
          from unnest(p_registrations) t
    ), state as (
        -- A batch touches a few tokens of many: each push_tokens row is read by its key (the
        -- LIMIT keeps the planner from a hash join over the whole table).
        select k.app_id, k.provider, k.token_key, p.token, inv.sent_at, inv.status, inv.reason, inv.unregistered_at
          from touched k
          cross join lateral (
                select p.token, p.last_registered_at from push_tokens p
                 where p.app_id = k.app_id and p.provider = k.provider and p.token_key = k.token_key
                 limit 1) p
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
