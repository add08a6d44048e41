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
