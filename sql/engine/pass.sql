-- One pass of the outcome engine (docs/rollups.md "The flow"), the one entry point `pushledger
-- rollup` (once, --full, or --follow) calls: the send rollups' first step, the prompt cohorts, the
-- rest of the send rollups with their landings, and the pass record, in the caller's transaction
-- and in this order. A pass is
-- pushledger_rollup_pass_start, the prompt cohorts (pushledger_rollup_pass_prompts), the
-- refresh's look-ups and whole days (pushledger_refresh_rollups_affected,
-- pushledger_classify_whole_days) and pushledger_rollup_pass_end: `pushledger rollup` calls them
-- itself when it classifies part of the whole days on a second connection meanwhile
-- (docs/rollups.md "Two connections"), pushledger_rollup_pass in one call.

drop function if exists pushledger_report_rollups(timestamptz, interval, boolean);
drop function if exists pushledger_refresh_report_rollups(timestamptz, interval);
drop function if exists pushledger_rebuild_report_rollups(timestamptz, interval);

-- Replaced by pushledger_rollup_pass_start and pushledger_rollup_pass_prompts.
drop function if exists pushledger_rollup_pass_begin(timestamptz, interval, boolean);

-- The pass up to the prompt cohorts: the derived state busy writers left, and a refresh's first
-- step (pushledger_refresh_rollups_begin; nothing more for a rebuild). One row: how many batches'
-- derived state it applied, and whether the send rollups refresh incrementally (false: a
-- rebuild, in pushledger_rollup_pass_end). The prompt cohorts come next: after the refresh's
-- first step, which takes the queue the second connection's days are chosen from, so that on
-- two connections they are recomputed while the second connection classifies its days.
-- Reads and writes what pushledger_apply_derived_inputs and pushledger_refresh_rollups_begin do.
create or replace function pushledger_rollup_pass_start(p_as_of timestamptz, p_window interval, p_full boolean)
returns table (derived_applied integer, incremental boolean)
language plpgsql
-- No JIT for any step: their statements look sets up key by key, and the planner's cost for
-- thousands of look-ups passes the JIT thresholds. Compiling the landings' look-ups of one
-- pipeline pass took 0.63 s of the 0.75 s statement, a fifth of the pass.
set jit = off
as $$
declare
    v_applied integer;
    v_incremental boolean := false;
begin
    -- The pass's commit need not wait for its WAL to reach disk (or a synchronous standby): a
    -- crash can lose only whole transactions, and a lost pass loses its taking of the queue with
    -- its results, so the next pass takes the same inputs again. The writer's commits, which
    -- hold the events themselves, keep the server's setting.
    perform set_config('synchronous_commit', 'off', true);
    -- The prompt cohorts' lock before the send rollups', as an erasure and a rebuild take them,
    -- though the prompt cohorts are recomputed later: two passes never wait for each other in
    -- a cycle.
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_prompt_rollups'));
    -- The derived state busy writers queued first: the installations and re-resolved sends it
    -- changes queue their own rollup inputs, which this pass then takes.
    v_applied := pushledger_apply_derived_inputs();
    if not p_full then
        v_incremental := pushledger_refresh_rollups_begin(p_as_of, p_window);
    end if;
    return query select v_applied, v_incremental;
end
$$;

-- The pass's prompt cohorts as of p_as_of, refreshed or (p_full) rebuilt; returns the days
-- recomputed (pushledger_refresh_prompt_rollups). They read no working table of the send
-- rollups and write none.
-- Reads and writes what pushledger_refresh_prompt_rollups (or pushledger_rebuild_prompt_rollups)
-- does.
create or replace function pushledger_rollup_pass_prompts(p_as_of timestamptz, p_full boolean)
returns integer
language plpgsql
set jit = off
as $$
begin
    -- Each step's two forms side by side (RollupFlowTests reads them so).
    if p_full then
        return pushledger_rebuild_prompt_rollups(p_as_of);
    end if;
    return pushledger_refresh_prompt_rollups(p_as_of);
end
$$;

-- A refresh as of p_as_of with confirmation window p_window, or a rebuild from scratch when
-- p_full (a refresh that cannot be incremental rebuilds too). One row: the (app, day)s whose
-- rollups moved or were recomputed (two arrays, in order), the prompt-cohort days recomputed,
-- the sends judged again and whether everything was rebuilt.
-- Reads and writes what pushledger_rollup_pass_start, pushledger_rollup_pass_prompts,
-- pushledger_refresh_rollups_affected, pushledger_classify_whole_days and
-- pushledger_rollup_pass_end do.
create or replace function pushledger_rollup_pass(
    p_as_of timestamptz default now(), p_window interval default '24 hours', p_full boolean default false)
returns table (apps text[], days date[], prompt_cohort_days integer, reclassified_sends bigint, rebuilt boolean)
language plpgsql
set jit = off
as $$
declare
    v_begun record;
    v_cohorts integer;
begin
    select * into v_begun from pushledger_rollup_pass_start(p_as_of, p_window, p_full);
    v_cohorts := pushledger_rollup_pass_prompts(p_as_of, p_full);
    if v_begun.incremental then
        perform pushledger_refresh_rollups_affected(p_as_of, p_window);
        perform pushledger_classify_whole_days(p_as_of, p_window, false);
    end if;
    return query
    select * from pushledger_rollup_pass_end(p_as_of, p_window, v_cohorts, v_begun.incremental);
end
$$;

-- The pass after the whole days' classification: the send rollups' last step
-- (pushledger_refresh_rollups_end, or the rebuild when not p_incremental) and the pass record.
-- Returns the row pushledger_rollup_pass returns, given the prompt-cohort days p_cohorts.
-- Reads and writes what pushledger_refresh_rollups_end (or pushledger_rebuild_rollups) and
-- pushledger_record_rollup_pass do; reads rollup_refresh_state.
create or replace function pushledger_rollup_pass_end(
    p_as_of timestamptz, p_window interval, p_cohorts integer, p_incremental boolean)
returns table (apps text[], days date[], prompt_cohort_days integer, reclassified_sends bigint, rebuilt boolean)
language plpgsql
set jit = off
as $$
declare
    v_apps text[];
    v_days date[];
begin
    -- In the order the send refresh reports them.
    if p_incremental then
        select coalesce(array_agg(r.refreshed_app), '{}'), coalesce(array_agg(r.refreshed_day), '{}')
          into v_apps, v_days from pushledger_refresh_rollups_end(p_as_of, p_window) r;
    else
        select coalesce(array_agg(r.refreshed_app), '{}'), coalesce(array_agg(r.refreshed_day), '{}')
          into v_apps, v_days from pushledger_rebuild_rollups(p_as_of, p_window) r;
    end if;
    perform pushledger_record_rollup_pass();
    return query
    select v_apps, v_days, p_cohorts, s.reclassified, s.full_at is not distinct from s.refreshed_at
      from rollup_refresh_state s;
end
$$;
