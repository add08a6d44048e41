-- Writer: statistics of the staging tables only when a batch outgrows them (found by
-- `make bench`, see README "Performance"). ANALYZE of the staging tables in every
-- transaction changed their pg_class row, which invalidated every cached plan reading them:
-- each batch re-planned the ~20 statements of pushledger_apply_staged over partitioned
-- tables (a fifth of the writer's CPU in perf). Row estimates follow a table's current size
-- at plan time anyway; the statistics only need to describe batches of about this size, so
-- they are refreshed when a batch is over twice what they describe (a few times a session).

-- Analyzes each staging table whose rows outnumber twice its last statistics (never
-- analyzed: reltuples = -1). Call after COPY.
create function pushledger_analyze_staging()
returns void
language plpgsql as $$
declare
    v_table text;
    v_rows bigint;
begin
    foreach v_table in array array['stage_telemetry', 'stage_sends'] loop
        execute format('select count(*) from pg_temp.%I', v_table) into v_rows;
        if v_rows > 2 * greatest(0, (select c.reltuples from pg_class c where c.oid = ('pg_temp.' || v_table)::regclass)) then
            execute format('analyze pg_temp.%I', v_table);
        end if;
    end loop;
end
$$;
