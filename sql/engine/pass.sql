-- One pass of the outcome engine (docs/rollups.md "The flow"), the one entry point `pushledger
-- rollup` (once, --full, or --follow) calls: the prompt cohorts, the send rollups with their
-- landings, and the pass record, in the caller's transaction and in this order.

drop function if exists pushledger_report_rollups(timestamptz, interval, boolean);
drop function if exists pushledger_refresh_report_rollups(timestamptz, interval);
drop function if exists pushledger_rebuild_report_rollups(timestamptz, interval);

-- A refresh as of p_as_of with confirmation window p_window, or a rebuild from scratch when
-- p_full (a refresh that cannot be incremental rebuilds too). One row: the (app, day)s whose
-- rollups moved or were recomputed (two arrays, in order), the prompt-cohort days recomputed,
-- the sends judged again and whether everything was rebuilt.
-- Reads and writes what pushledger_apply_derived_inputs, pushledger_refresh_prompt_rollups (or
-- pushledger_rebuild_prompt_rollups), pushledger_refresh_rollups (or pushledger_rebuild_rollups)
-- and pushledger_record_rollup_pass do; reads rollup_refresh_state.
create or replace function pushledger_rollup_pass(
    p_as_of timestamptz default now(), p_window interval default '24 hours', p_full boolean default false)
returns table (apps text[], days date[], prompt_cohort_days integer, reclassified_sends bigint, rebuilt boolean)
language plpgsql
-- No JIT for any step: their statements look sets up key by key, and the planner's cost for
-- thousands of look-ups passes the JIT thresholds. Compiling the landings' look-ups of one
-- pipeline pass took 0.63 s of the 0.75 s statement, a fifth of the pass.
set jit = off
as $$
declare
    v_cohorts integer;
    v_apps text[];
    v_days date[];
begin
    -- The pass's commit need not wait for its WAL to reach disk (or a synchronous standby): a
    -- crash can lose only whole transactions, and a lost pass loses its taking of the queue with
    -- its results, so the next pass takes the same inputs again. The writer's commits, which
    -- hold the events themselves, keep the server's setting.
    perform set_config('synchronous_commit', 'off', true);
    -- The derived state busy writers queued first: the installations and re-resolved sends it
    -- changes queue their own rollup inputs, which this pass then takes.
    perform pushledger_apply_derived_inputs();
    -- Each step's two forms side by side, the steps in order (RollupFlowTests reads them so).
    if p_full then
        v_cohorts := pushledger_rebuild_prompt_rollups(p_as_of);
    else
        v_cohorts := pushledger_refresh_prompt_rollups(p_as_of);
    end if;
    -- In the order the send refresh reports them.
    if p_full then
        select coalesce(array_agg(r.refreshed_app), '{}'), coalesce(array_agg(r.refreshed_day), '{}')
          into v_apps, v_days from pushledger_rebuild_rollups(p_as_of, p_window) r;
    else
        select coalesce(array_agg(r.refreshed_app), '{}'), coalesce(array_agg(r.refreshed_day), '{}')
          into v_apps, v_days from pushledger_refresh_rollups(p_as_of, p_window) r;
    end if;
    perform pushledger_record_rollup_pass();
    return query
    select v_apps, v_days, v_cohorts, s.reclassified, s.full_at is not distinct from s.refreshed_at
      from rollup_refresh_state s;
end
$$;
