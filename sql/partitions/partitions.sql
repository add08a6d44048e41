-- Partitions of the high-volume time series (see sql/migrations/0001_baseline.sql): a month
-- (`sends_p2026_11`) or a day (`sends_p2026_11_15`) each, by pushledger_settings.partition_granularity.
-- Retention and the overlap checks read each partition's range from its bound, not its name, so a
-- deployment that switched granularity keeps working with partitions of both kinds.

-- The partitioned tables and their time column, for the partition functions below.
create or replace function pushledger_partitioned_tables()
returns table (table_name text, time_column text)
language sql immutable as $$
    values ('sends', 'sent_at'), ('settings_snapshots', 'occurred_at'), ('channel_states', 'occurred_at'),
           ('notification_receipts', 'occurred_at'), ('notification_opens', 'occurred_at')
$$;

-- Every range partition of the partitioned tables with its [lower, upper) bound.
create or replace function pushledger_partition_ranges()
returns table (table_name text, partition_name text, lower_bound timestamptz, upper_bound timestamptz)
language sql stable as $$
    select p.table_name, c.relname::text, r.bounds[1]::timestamptz, r.bounds[2]::timestamptz
      from pushledger_partitioned_tables() p
      join pg_inherits i on i.inhparent = p.table_name::regclass
      join pg_class c on c.oid = i.inhrelid
     cross join lateral regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                     'FROM \(''([^'']+)''\) TO \(''([^'']+)''\)') r(bounds)
     where r.bounds is not null  -- not the DEFAULT partition
$$;

-- The configured granularity: 'monthly' or 'daily'.
create or replace function pushledger_partition_granularity()
returns text
language sql stable as $$
    select coalesce((select partition_granularity from pushledger_settings), 'monthly')
$$;

-- Creates partition p_name of p_table for [p_from, p_to), moving the rows the default
-- partition caught for that range into it. The caller holds the partition lock.
create or replace function pushledger_create_partition(
    p_table text, p_time_column text, p_name text, p_from timestamptz, p_to timestamptz)
returns text
language plpgsql set timezone = 'UTC' as $$
declare
    v_moved text := p_name || '_moving';
    v_columns text;
begin
    execute format(
        'create temp table %I on commit drop as '
        'with d as (delete from %I where %I >= $1 and %I < $2 returning *) select * from d',
        v_moved, p_table || '_default', p_time_column, p_time_column)
        using p_from, p_to;
    execute format('create table %I partition of %I for values from (%L) to (%L)', p_name, p_table, p_from, p_to);
    -- Generated columns are recomputed, not copied.
    select string_agg(quote_ident(attname), ', ' order by attnum) into v_columns
      from pg_attribute
     where attrelid = p_table::regclass and attnum > 0 and not attisdropped and attgenerated = '';
    execute format('insert into %I (%s) select %s from %I', p_name, v_columns, v_columns, v_moved);
    execute format('drop table %I', v_moved);
    return p_name;
end
$$;

-- Creates the partitions covering [p_from, p_to] (UTC months or days) for every partitioned
-- table; returns the partitions it created. Cheap when they all exist (a catalog lookup by
-- name), so the writer calls it for every batch; cron may call it ahead of time. A range
-- already covered by partitions of the other granularity is left alone; one partly covered
-- (a month after switching back from daily) gets a partition for each uncovered day.
-- (In UTC throughout: a day or month added in another zone could cross a DST change.)
-- p_table: that table's alone (null: every partitioned table).
create or replace function pushledger_ensure_table_partitions(p_from timestamptz, p_to timestamptz, p_table text)
returns setof text
language plpgsql set timezone = 'UTC' as $$
declare
    v_daily boolean := pushledger_partition_granularity() = 'daily';
    v_unit text := case when v_daily then 'day' else 'month' end;
    v_step interval := case when v_daily then interval '1 day' else interval '1 month' end;
    v_format text := case when v_daily then 'YYYY_MM_DD' else 'YYYY_MM' end;
    v_start timestamptz;
    v_day timestamptz;
    v_t record;
    v_covered interval;
    v_locked boolean := false;
begin
    if p_from is null or p_to is null or p_to < p_from then
        return;
    end if;
    for v_start in
        select generate_series(date_trunc(v_unit, p_from at time zone 'UTC'),
                               date_trunc(v_unit, p_to at time zone 'UTC'), v_step)
               at time zone 'UTC'
    loop
        for v_t in select * from pushledger_partitioned_tables() t where p_table is null or t.table_name = p_table loop
            continue when to_regclass(
                format('%s_p%s', v_t.table_name, to_char(v_start at time zone 'UTC', v_format))) is not null;
            -- Covered by partitions of the other granularity? (No lock needed to find out.)
            select coalesce(sum(least(r.upper_bound, v_start + v_step) - greatest(r.lower_bound, v_start)),
                            interval '0')
              into v_covered
              from pushledger_partition_ranges() r
             where r.table_name = v_t.table_name and r.lower_bound < v_start + v_step and r.upper_bound > v_start;
            continue when v_covered >= (v_start + v_step) - v_start;
            if not v_locked then
                -- Serialise creators (writers, cron, retention) so concurrent calls don't race.
                perform pg_advisory_xact_lock(hashtext('pushledger_ensure_partitions'));
                v_locked := true;
            end if;
            -- With the lock, from the catalog afresh (another writer may have just committed it).
            if not exists (select 1 from pushledger_partition_ranges() r
                            where r.table_name = v_t.table_name and r.lower_bound < v_start + v_step
                                and r.upper_bound > v_start) then
                return next pushledger_create_partition(
                    v_t.table_name, v_t.time_column, format('%s_p%s', v_t.table_name,
                                                            to_char(v_start at time zone 'UTC', v_format)),
                    v_start, v_start + v_step);
                continue;
            end if;
            for v_day in select generate_series(v_start, v_start + v_step - interval '1 day', interval '1 day') loop
                continue when exists (select 1 from pushledger_partition_ranges() r
                                       where r.table_name = v_t.table_name and r.lower_bound < v_day + interval '1 day'
                                         and r.upper_bound > v_day);
                return next pushledger_create_partition(
                    v_t.table_name, v_t.time_column, 
                    format('%s_p%s', v_t.table_name, to_char(v_day at time zone 'UTC', 'YYYY_MM_DD')),
                    v_day, v_day + interval '1 day');
            end loop;
        end loop;
    end loop;
end
$$;

create or replace function pushledger_ensure_partitions(p_from timestamptz, p_to timestamptz)
returns setof text
language sql as $$
    select * from pushledger_ensure_table_partitions(p_from, p_to, null)
$$;

-- The same, one table a transaction: CALL it outside a transaction block. Creating a partition
-- locks its parent table exclusively until commit; a transaction holding that lock while it
-- waits for the next table's (behind a rollup refresh reading that table) deadlocks with the
-- refresh when the refresh reads the first table next (it reads the telemetry tables before
-- sends, the list above starts with sends). One table a transaction never holds one lock
-- while waiting for another. The event writer calls it before a batch that reaches a day it
-- has not seen covered.
create or replace procedure pushledger_create_partitions_apart(p_from timestamptz, p_to timestamptz)
language plpgsql as $$
declare
    v_table text;
begin
    for v_table in select table_name from pushledger_partitioned_tables() loop
        perform pushledger_ensure_table_partitions(p_from, p_to, v_table);
        commit;
    end loop;
end
$$;
