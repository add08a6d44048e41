-- Retention: whole monthly partitions are dropped once their last instant is older than the
-- cutoff (cheap, no vacuum debt); the default partitions and the unpartitioned bookkeeping
-- tables lose rows older than the cutoff. Rollups are kept: they outlive the raw events.

-- Drops partitions entirely before p_cutoff; returns their names.
create function pushledger_drop_partitions_before(p_cutoff timestamptz)
returns setof text
language plpgsql as $$
declare
    v_part record;
begin
    for v_part in
        select c.relname, p.table_name,
               to_timestamp(substring(c.relname from '_p(\d{4}_\d{2})$'), 'YYYY_MM')::timestamp
                   at time zone 'UTC' + interval '1 month' as upper_bound
          from pushledger_partitioned_tables() p
          join pg_inherits i on i.inhparent = p.table_name::regclass
          join pg_class c on c.oid = i.inhrelid
         where c.relname ~ '_p\d{4}_\d{2}$'
         order by c.relname
    loop
        continue when v_part.upper_bound > p_cutoff;
        execute format('drop table %I', v_part.relname);
        return next v_part.relname;
    end loop;
end
$$;

-- Applies retention at p_cutoff: returns one row per thing removed (partition name and its
-- kind, or a table and the rows deleted from it).
create function pushledger_apply_retention(p_cutoff timestamptz)
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
