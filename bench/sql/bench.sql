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
