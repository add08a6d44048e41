-- Writer tuning found by the benchmark (Tests/StoreTests/WriterBenchmark.swift).
-- and the concurrent writer test (0001-0006 are applied on shared databases, so changes
-- come as new migrations).

-- The instrumentation lookup reads a window of receipts through the primary key
-- (app_id, occurred_at, event_id); one index less to maintain on every receipt.
drop index notification_receipts_slice;

-- Two writers creating the same month: the second one, once it has the lock, must see the
-- first one's partition (found by ConcurrentWriterTests).
-- Creates the monthly partitions covering [p_from, p_to] (UTC months) for every partitioned
-- table; returns the partitions it created. Cheap when they all exist (a catalog lookup), so
-- the writer calls it for the months of every batch; cron may call it ahead of time.
-- Rows already caught by the default partition are moved into the new month.
create or replace function pushledger_ensure_partitions(p_from timestamptz, p_to timestamptz)
returns setof text
language plpgsql as $$
declare
    v_month timestamptz;
    v_t record;
    v_name text;
    v_moved text;
    v_columns text;
begin
    if p_from is null or p_to is null or p_to < p_from then
        return;
    end if;
    for v_month in
        select generate_series(date_trunc('month', p_from at time zone 'UTC'),
                               date_trunc('month', p_to at time zone 'UTC'), interval '1 month')
               at time zone 'UTC'
    loop
        for v_t in select * from pushledger_partitioned_tables() loop
            v_name := format('%s_p%s', v_t.table_name, to_char(v_month at time zone 'UTC', 'YYYY_MM'));
            continue when to_regclass(v_name) is not null;
            -- Serialise creators (writers and cron) so concurrent calls don't race on one name.
            perform pg_advisory_xact_lock(hashtext('pushledger_ensure_partitions'));
            -- After waiting, read pg_class with a fresh snapshot: to_regclass may answer from
            -- a cache that hasn't seen the partition another writer just committed.
            continue when exists (select 1 from pg_class
                                   where relname = v_name and relnamespace = current_schema()::regnamespace);
            v_moved := v_name || '_moving';
            execute format(
                'create temp table %I on commit drop as with d as (delete from %I where %I >= $1 and %I < $2 returning *) select * from d',
                v_moved, v_t.table_name || '_default', v_t.time_column, v_t.time_column)
                using v_month, v_month + interval '1 month';
            execute format('create table %I partition of %I for values from (%L) to (%L)',
                v_name, v_t.table_name, v_month, v_month + interval '1 month');
            -- Generated columns are recomputed, not copied.
            select string_agg(quote_ident(attname), ', ' order by attnum) into v_columns
              from pg_attribute
             where attrelid = v_t.table_name::regclass and attnum > 0 and not attisdropped and attgenerated = '';
            execute format('insert into %I (%s) select %s from %I', v_name, v_columns, v_columns, v_moved);
            execute format('drop table %I', v_moved);
            return next v_name;
        end loop;
    end loop;
end
$$;
