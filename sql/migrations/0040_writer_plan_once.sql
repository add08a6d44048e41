-- Writer: statistics of the staging tables once per session, not once per batch (found by
-- `make bench`, bench/README-section.md). Analyzing the staging tables in every transaction
-- invalidated every cached plan that reads them, so each batch re-planned its ~20 statements
-- over partitioned tables. The first batch's statistics are enough: row estimates follow
-- the table's current size at plan time, and the column statistics (event type mix, key
-- spread) do not change from batch to batch.

-- Analyzes this session's staging tables unless they were analyzed before (reltuples stays
-- -1 until the first ANALYZE). Call after COPY, only for a batch with events.
create function pushledger_analyze_staging()
returns void
language plpgsql as $$
begin
    if (select c.reltuples from pg_class c where c.oid = 'pg_temp.stage_telemetry'::regclass) < 0 then
        analyze pg_temp.stage_telemetry;
        analyze pg_temp.stage_sends;
    end if;
end
$$;
