-- Helpers of scripts/bench.sh, installed only in its throwaway databases (never a migration):
-- the tables the writer fills, exporting them, naive INSERTs and k-fold copies of the fleet.
create schema if not exists bench;

-- Every table the event writer fills for valid events.
create or replace function bench.tables() returns text[] language sql immutable as $$
    select array['event_ids', 'installations', 'token_registrations', 'push_tokens', 'permission_prompts',
                 'experiment_exposures', 'settings_snapshots', 'channel_states', 'notification_receipts',
                 'notification_opens', 'sends']
$$;

-- The columns a COPY or INSERT writes (not generated, not identity), in table order.
create or replace function bench.columns(p_table text) returns text language sql stable as $$
    select string_agg(quote_ident(attname), ', ' order by attnum)
      from pg_attribute
     where attrelid = ('public.' || p_table)::regclass and attnum > 0 and not attisdropped
       and attgenerated = '' and attidentity = ''
$$;

-- Rows of every table of bench.tables() matching p_where (the rows a measured run stored).
create or replace function bench.count_rows(p_where text) returns bigint language plpgsql stable as $$
declare
    v_table text;
    v_rows bigint;
    v_total bigint := 0;
begin
    foreach v_table in array bench.tables() loop
        execute format('select count(*) from public.%I where %s', v_table, p_where) into v_rows;
        v_total := v_total + v_rows;
    end loop;
    return v_total;
end
$$;

-- The triggers of the tables p_tables and of their partitions, but the internal ones (foreign
-- keys' checks) and a partition's clones of its parent's triggers.
create or replace function bench.triggers(p_tables text[]) returns table (rel regclass, name name)
language sql stable as $$
    select t.tgrelid::regclass, t.tgname
      from unnest(p_tables) n (name)
     cross join lateral (select ('public.' || n.name)::regclass as relid
                         union select p.relid from pg_partition_tree(('public.' || n.name)::regclass) p) r
      join pg_trigger t on t.tgrelid = r.relid
     where not t.tgisinternal and t.tgparentid = 0
     order by 1, 2
$$;

-- Drops every trigger of bench.triggers(p_tables): a COPY into those tables then pays for the
-- rows, indexes and foreign keys alone. A partition's clone of its parent's trigger goes with
-- the parent's. Returns how many it dropped.
create or replace function bench.drop_triggers(p_tables text[]) returns integer language plpgsql as $$
declare
    v_trigger record;
    v_dropped integer := 0;
begin
    for v_trigger in select * from bench.triggers(p_tables) loop
        execute format('drop trigger %I on %s', v_trigger.name, v_trigger.rel);
        v_dropped := v_dropped + 1;
    end loop;
    return v_dropped;
end
$$;

-- One INSERT statement per row, for every p_every-th row of every table matching p_where
-- (the naive peer).
create or replace function bench.naive_inserts(p_every integer, p_where text) returns setof text language plpgsql as $$
declare
    v_table text;
    v_columns text;
    v_format text;
begin
    foreach v_table in array bench.tables() loop
        v_columns := bench.columns(v_table);
        v_format := format('insert into %I (%s) values (%s);', v_table, v_columns,
                           (select string_agg('%L', ', ') from regexp_split_to_table(v_columns, ', ')));
        return query execute format(
            'select format(%L, %s) from (select *, row_number() over () as bench_n from public.%I where %s) r where bench_n %% %s = 0',
            v_format, v_columns, v_table, p_where, p_every);
    end loop;
end
$$;

-- Keeps the loaded fleet as the base that bench.clone copies.
create or replace function bench.save_base() returns void language plpgsql as $$
declare
    v_table text;
begin
    foreach v_table in array bench.tables() loop
        execute format('create table bench.%I as select * from public.%I', v_table, v_table);
    end loop;
end
$$;

-- Adds copy number p_copy of the base fleet: every uuid (installation, event, notification,
-- snapshot) and token is made unique to the copy, so each copy is a distinct fleet with the
-- same shape. Triggers are off (loading is not measured; the script marks the week dirty).
create or replace function bench.clone(p_copy integer) returns void language plpgsql as $$
declare
    v_table text;
    v_exprs text;
begin
    set local session_replication_role = replica;
    foreach v_table in array bench.tables() loop
        select string_agg(case when a.atttypid = 'uuid'::regtype then format('md5(%I::text || %L)::uuid', a.attname, p_copy)
                               when a.attname = 'token' then format('%I || %L', a.attname, '.' || p_copy)
                               else quote_ident(a.attname) end, ', ' order by a.attnum)
          into v_exprs
          from pg_attribute a
         where a.attrelid = ('public.' || v_table)::regclass and a.attnum > 0 and not a.attisdropped
           and a.attgenerated = '' and a.attidentity = '';
        execute format('insert into public.%I (%s) select %s from bench.%I', v_table, bench.columns(v_table), v_exprs, v_table);
    end loop;
end
$$;

-- Autovacuum on or off for every table of this database. The ingest paths are measured with
-- it off: the rows each path writes are the same, so the autovacuum they cause is the same
-- too, but it lands inside a measured window or after it by chance (an ANALYZE of the
-- partitions took 9-15 % of Postgres CPU inside serve's window, none inside COPY's 3 s).
create or replace function bench.autovacuum(p_on boolean) returns void language plpgsql as $$
declare
    v_table regclass;
begin
    for v_table in select c.oid from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' loop
        execute format('alter table %s set (autovacuum_enabled = %s)', v_table, p_on);
    end loop;
end
$$;

-- The floor of a rollup that would only aggregate: the week's sends already classified (as if
-- every send carried its outcome, resolved when events were written), in bench.classified,
-- and bench.classified_rollup grouping them as pushledger_rollup_days does (sql/engine/rollups.sql). Select
-- whole rows of the view, or the planner drops the counts nobody reads.
create or replace function bench.classify_week(p_app text, p_from date) returns void language plpgsql as $$
begin
    set local client_min_messages = warning;  -- no notices from the drop
    drop table if exists bench.classified cascade;
    create table bench.classified as
        select * from pushledger_classify_sends(p_app, p_from::timestamp at time zone 'UTC',
                                                (p_from + 7)::timestamp at time zone 'UTC', now(), '24 hours', true);
    create view bench.classified_rollup as
    select day, platform, channel, app_version, campaign, provider,
           count(*) as sends,
           count(*) filter (where outcome not in ('rejected', 'pending')) as accepted,
           count(*) filter (where outcome = 'rejected') as rejected,
           count(*) filter (where outcome = 'opened') as opened,
           count(*) filter (where outcome = 'received') as received,
           count(*) filter (where outcome = 'pending') as pending,
           count(*) filter (where outcome = 'blocked_app') as blocked_app,
           count(*) filter (where outcome = 'blocked_channel') as blocked_channel,
           count(*) filter (where outcome = 'unattributed') as unattributed,
           count(*) filter (where outcome = 'unconfirmed') as unconfirmed,
           count(*) filter (where token_invalid) as token_invalid,
           count(*) filter (where to_invalid_token) as to_invalid_token,
           count(*) filter (where outcome = 'unattributed' and snapshot_event_id is not null
                                  and installation_id is not null and not instrumented) as unattributed_uninstrumented
      from bench.classified
     group by day, platform, channel, app_version, campaign, provider;
end
$$;

-- One more hour of traffic after the rolled-up week, written through the tables' triggers as
-- ingest writes it: p_share of the week's sends again as new sends within the last hour,
-- receipts of half of them, as many late receipts of the week's sends no device confirmed yet
-- (earlier days), and p_share of the week's snapshots again (with their channel states) as new
-- snapshots. Returns the events written and their share of the week's events.
create or replace function bench.next_hour(p_app text, p_from date, p_share float8, out events bigint, out share float8)
language plpgsql as $$
declare
    v_columns text := bench.columns('sends');
    v_exprs text;
    v_week bigint;
    v_rows bigint;
    v_keys uuid[];
begin
    perform setseed(0.5);
    events := 0;
    select string_agg(case a.attname when 'event_id' then 'gen_random_uuid()'
                                     when 'notification_id' then 'md5(notification_id::text || ''hour'')::uuid'
                                     when 'sent_at' then 'now() - random() * interval ''1 hour'''
                                     when 'received_at' then 'now()'
                                     else quote_ident(a.attname) end, ', ' order by a.attnum)
      into v_exprs
      from pg_attribute a
     where a.attrelid = 'public.sends'::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = '';
    execute format('with n as (insert into sends (%s) select %s from sends where app_id = %L and sent_at >= %L::date
                      and sent_at < %L::date + 7 and random() < %s returning event_id) select array_agg(event_id) from n',
                   v_columns, v_exprs, p_app, p_from, p_from, p_share) into v_keys;
    -- Written by hand, so queued by hand: the writer queues what it stores, no trigger does.
    perform pushledger_queue_stored(p_app, array['sends'], v_keys);
    events := events + coalesce(cardinality(v_keys), 0);
    -- Receipts of half the new sends, and as many late ones of the week's unconfirmed sends.
    with n as (
        insert into notification_receipts (app_id, event_id, installation_id, platform, app_version, notification_id,
                                           channel, at, occurred_at, received_at)
        select s.app_id, gen_random_uuid(), s.installation_id, i.platform, i.app_version, s.notification_id, s.channel,
               now(), now(), now()
          from sends s join installations i on i.app_id = s.app_id and i.installation_id = s.installation_id
         where s.app_id = p_app and s.sent_at > now() - interval '1 hour' and s.received_at = now() and random() < 0.5
        returning event_id)
    select array_agg(event_id) from n into v_keys;
    perform pushledger_queue_stored(p_app, array['notification_receipts'], v_keys);
    v_rows := coalesce(cardinality(v_keys), 0); events := events + v_rows;
    with n as (
        insert into notification_receipts (app_id, event_id, installation_id, platform, app_version, notification_id,
                                           channel, at, occurred_at, received_at)
        select s.app_id, gen_random_uuid(), s.installation_id, i.platform, i.app_version, s.notification_id, s.channel,
               now(), now(), now()
          from (select * from sends s
                 where s.app_id = p_app and s.sent_at >= p_from and s.sent_at < p_from + 7 and s.status between 200 and 299
                   and not exists (select 1 from notification_receipts r
                                    where r.app_id = s.app_id and r.notification_id = s.notification_id)
                 order by random()
                 limit v_rows) s
          join installations i on i.app_id = s.app_id and i.installation_id = s.installation_id
        returning event_id)
    select array_agg(event_id) from n into v_keys;
    perform pushledger_queue_stored(p_app, array['notification_receipts'], v_keys);
    events := events + coalesce(cardinality(v_keys), 0);
    -- New snapshots (and their channels) of some of the week's installations.
    create temp table bench_snapshots on commit drop as
    select n.*, gen_random_uuid() as new_event_id, now() - random() * interval '1 hour' as new_at
      from settings_snapshots n
     where n.app_id = p_app and n.occurred_at >= p_from and n.occurred_at < p_from + 7 and random() < p_share;
    select string_agg(case a.attname when 'event_id' then 'new_event_id' when 'at' then 'new_at' when 'occurred_at' then 'new_at'
                                     when 'received_at' then 'now()' else quote_ident(a.attname) end, ', ' order by a.attnum)
      into v_exprs
      from pg_attribute a
     where a.attrelid = 'public.settings_snapshots'::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = '';
    execute format('insert into settings_snapshots (%s) select %s from bench_snapshots', bench.columns('settings_snapshots'), v_exprs);
    get diagnostics v_rows = row_count; events := events + v_rows;
    perform pushledger_queue_stored(p_app, array['settings_snapshots'], (select array_agg(new_event_id) from bench_snapshots));
    insert into channel_states (app_id, snapshot_event_id, installation_id, channel_id, importance, group_id, group_blocked,
                                occurred_at, received_at)
    select c.app_id, n.new_event_id, c.installation_id, c.channel_id, c.importance, c.group_id, c.group_blocked, n.new_at, now()
      from bench_snapshots n
      join channel_states c on c.app_id = n.app_id and c.occurred_at = n.occurred_at and c.snapshot_event_id = n.event_id;
    select (select count(*) from sends where app_id = p_app and sent_at >= p_from and sent_at < p_from + 7)
         + (select count(*) from settings_snapshots where app_id = p_app and occurred_at >= p_from and occurred_at < p_from + 7)
         + (select count(*) from notification_receipts where app_id = p_app and occurred_at >= p_from and occurred_at < p_from + 7)
         + (select count(*) from notification_opens where app_id = p_app and occurred_at >= p_from and occurred_at < p_from + 7)
      into v_week;
    share := events::float8 / greatest(v_week, 1);
end
$$;

-- The rollup tables as one digest (refresh times and as_of left out): an incremental refresh
-- and a rebuild as of the same time give the same one.
create or replace function bench.rollup_digest() returns text language sql stable as $$
    select md5(string_agg(t, E'\n' order by t)) from (
        select format('r %s %s %s %s %s %s %s', app_id, day, platform, channel, app_version, campaign,
                      array[sends, accepted, rejected, opened, received, pending, blocked_app, blocked_channel,
                            unattributed, unconfirmed, token_invalid, to_invalid_token, unattributed_uninstrumented]) as t
          from send_rollups_daily
        union all
        select format('j %s %s %s %s %s %s %s %s', app_id, day, platform, provider, reason_class, reason, status, rejected)
          from send_rejections_daily
        union all
        select format('i %s %s %s %s', app_id, day, platform, app_version) from instrumented_slices_daily
        union all
        select format('l %s %s %s %s %s %s %s', app_id, day, channel, campaign, opens, landed_reported, misrouted)
          from open_landings_daily) rows
$$;
