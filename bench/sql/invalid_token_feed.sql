-- The invalid-token feed at scale: builds :sends sends for one app (plus a fifth as many for a
-- second app) in a migrated scratch database, then times the feed reads a polling sender makes.
-- Run by scripts/bench-invalid-tokens.sh (psql -v sends=N). Tokens: one per five sends; 3 % of
-- sends are invalidating results (APNs 410); every token has a registration a day before its
-- first send, so a token is invalid from its first 410 on.
\set ON_ERROR_STOP on
\timing off
truncate sends, push_tokens, token_invalidations;
select pushledger_ensure_partitions(now() - interval '29 days', now());

\echo 'building sends'
\timing on
insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by, channel,
                   sent_at, status, reason, received_at)
select app, gen_random_uuid(), gen_random_uuid(), 'apns', lpad(to_hex(i % (n / 5)), 64, '0'), null, 'unresolved',
       'orders', now() - interval '28 days' + (i::double precision / n) * interval '28 days',
       case when i % 33 = 0 then 410 else 200 end, case when i % 33 = 0 then 'Unregistered' end, now()
  from (select 'com.example.bench' as app, :sends as n union all select 'com.example.other', :sends / 5) apps,
       generate_series(1, n) i;
\timing off

\echo 'registrations and token state'
insert into push_tokens (app_id, provider, token_key, token, first_registered_at, last_registered_at)
select app_id, provider, token_key, min(token), min(sent_at) - interval '1 day', min(sent_at) - interval '1 day'
  from sends group by app_id, provider, token_key;
update push_tokens p set invalidated_at = i.sent_at, invalidated_status = 410, invalidated_reason = 'Unregistered'
  from (select app_id, provider, token_key, max(sent_at) as sent_at from sends where status = 410
         group by 1, 2, 3) i
 where p.app_id = i.app_id and p.provider = i.provider and p.token_key = i.token_key;

\echo 'feed rows, written in batches of 500 tokens, one transaction each (as the writer would)'
do $$
declare
    v_batch integer := 0;
begin
    loop
        insert into token_invalidations (app_id, provider, token_key, token, invalidated_at, status, reason,
                                         unregistered_at, feed_xid)
        select p.app_id, p.provider, p.token_key, p.token, f.sent_at, f.status, f.reason, f.unregistered_at,
               pg_current_xact_id()
          from push_tokens p
          cross join lateral pushledger_first_invalidation(p.app_id, p.provider, p.token_key, p.last_registered_at) f
         where p.invalidated_at is not null
         order by p.app_id, p.provider, p.token_key
         offset v_batch * 500 limit 500;
        exit when not found;
        v_batch := v_batch + 1;
        commit;
    end loop;
end
$$;
vacuum analyze sends, push_tokens, token_invalidations;

select (select count(*) from sends) as sends,
       (select count(*) from sends where app_id = 'com.example.bench') as bench_app_sends,
       (select count(*) from token_invalidations where app_id = 'com.example.bench') as invalid_tokens,
       (select count(distinct feed_xid) from token_invalidations) as positions;

-- A poller at the head of the feed: its cursor is just behind the newest position.
select feed_xid::text as head_xid from token_invalidations where app_id = 'com.example.bench'
 order by feed_xid desc limit 1 offset 20 \gset

-- The plan of the feed's read (pushledger_invalid_tokens, inlined by the planner), at the head
-- and from the start of a walk. psql variables are not seen inside DO: the head goes in a GUC.
select set_config('bench.head_xid', :'head_xid', false);
do $$
declare
    v_case record;
    v_line text;
begin
    for v_case in
        select 'poll at the head (cursor 20 tokens behind the newest), limit 1000' as title,
               current_setting('bench.head_xid')::xid8 as after
        union all select 'first page of a walk from the start, limit 1000', '0'::xid8
    loop
        raise notice '%', v_case.title;
        for v_line in execute format(
            'explain (analyze, buffers, costs off) select * from pushledger_invalid_tokens(%L, null, %L::xid8, %L, %L::uuid, '
            'pushledger_invalid_tokens_horizon(), 1000)', 'com.example.bench', v_case.after, '', '00000000-0000-0000-0000-000000000000')
        loop
            raise notice '%', v_line;
        end loop;
    end loop;
end
$$;

\echo 'timings: 200 head polls, then one whole walk in pages of 1000'
\timing on
do $$
declare
    v_head xid8 := (select feed_xid from token_invalidations where app_id = 'com.example.bench' order by feed_xid desc limit 1 offset 20);
begin
    for i in 1..200 loop
        perform count(*) from pushledger_invalid_tokens('com.example.bench', null, v_head, '', '00000000-0000-0000-0000-000000000000',
                                                        pushledger_invalid_tokens_horizon(), 1000);
    end loop;
end
$$;
do $$
declare
    v_horizon xid8 := pushledger_invalid_tokens_horizon();
    v_xid xid8 := '0';
    v_provider text := '';
    v_key uuid := '00000000-0000-0000-0000-000000000000';
    v_rows integer;
    v_total integer := 0;
    r record;
begin
    loop
        v_rows := 0;
        for r in select * from pushledger_invalid_tokens('com.example.bench', null, v_xid, v_provider, v_key, v_horizon, 1000) loop
            v_rows := v_rows + 1;
            v_xid := r.feed_xid; v_provider := r.provider; v_key := r.token_key;
        end loop;
        v_total := v_total + v_rows;
        exit when v_rows < 1000;
    end loop;
    raise notice 'walked % tokens', v_total;
end
$$;
