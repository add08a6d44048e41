-- Retention: whole partitions (monthly or daily) are dropped once their last instant is older than the
-- cutoff (cheap, no vacuum debt); the default partitions and the unpartitioned bookkeeping
-- tables lose rows older than the cutoff. Rollups are kept: they outlive the raw events.

-- Drops the partitions whose whole range lies before p_cutoff (monthly or daily); returns
-- their names.
create or replace function pushledger_drop_partitions_before(p_cutoff timestamptz)
returns setof text
language plpgsql as $$
declare
    v_name text;
begin
    for v_name in
        select r.partition_name from pushledger_partition_ranges() r where r.upper_bound <= p_cutoff
            order by r.partition_name
    loop
        execute format('drop table %I', v_name);
        return next v_name;
    end loop;
end
$$;

-- Applies retention at p_cutoff: returns one row per thing removed (partition name and its
-- kind, or a table and the rows deleted from it).
create or replace function pushledger_apply_retention(p_cutoff timestamptz)
returns table (object text, kind text, row_count bigint)
language plpgsql as $$
declare
    v_t record;
    v_count bigint;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_ensure_partitions'));
    return query select d, 'partition'::text, null::bigint from pushledger_drop_partitions_before(p_cutoff) d;
    for v_t in select * from pushledger_partitioned_tables() loop
        execute format('delete from %I where %I < $1', v_t.table_name || '_default', v_t.time_column)
            using p_cutoff;
        get diagnostics v_count = row_count;
        if v_count > 0 then
            object := v_t.table_name || '_default'; kind := 'rows'; row_count := v_count;
            return next;
        end if;
    end loop;
    -- Only keys of events old enough to be refused as too_old anyway should go: keep the
    -- cutoff past the contract's 30 days.
    delete from event_ids where received_at < p_cutoff;
    get diagnostics v_count = row_count;
    object := 'event_ids'; kind := 'rows'; row_count := v_count;
    return next;
    delete from failed_events where received_at < p_cutoff;
    get diagnostics v_count = row_count;
    object := 'failed_events'; kind := 'rows'; row_count := v_count;
    return next;
end
$$;
