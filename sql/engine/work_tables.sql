-- The refresh's working tables, declared here and nowhere else: session temporary tables that
-- live for one refresh or rebuild (on commit drop), created empty by pushledger_rollup_work_tables
-- at its start. docs/rollups.md draws how they connect the steps. Each says who fills it and
-- who reads it; nothing else touches them. (The prompt-cohort refresh keeps one table of its
-- own, filled and read inside one function: prompt_member_changes, sql/engine/prompt_rollups.sql.)

-- Creates (or empties) every working table of a send-rollup refresh or rebuild.
-- Reads nothing; writes the tables below.
create or replace function pushledger_rollup_work_tables()
returns void
language plpgsql as $$
begin
    -- rollup_taken: the queued rollup_inputs rows this refresh applies.
    --   Filled by pushledger_take_rollup_inputs (sql/engine/refresh_inputs.sql).
    --   Read by pushledger_stored_sends, pushledger_affected_sends, pushledger_refresh_slices,
    --   pushledger_refresh_landings.
    create temp table if not exists rollup_taken on commit drop as select * from rollup_inputs with no data;
    -- rollup_days: the (app, day)s recomputed whole.
    --   Filled by pushledger_take_rollup_inputs (days marked dirty), pushledger_promote_busy_days
    --   (busy days) and pushledger_rebuild_rollups (every day with rollups).
    --   Read by pushledger_refresh_slices, pushledger_refresh_rollups,
    --   pushledger_refresh_landing_notifications.
    create temp table if not exists rollup_days (app_id text, day date) on commit drop;
    -- rollup_slice_days: the (app, day)s that gained an instrumented slice.
    --   Filled by pushledger_refresh_rollups_begin (from pushledger_refresh_slices).
    --   Read by pushledger_refresh_rollups_end.
    create temp table if not exists rollup_slice_days (app_id text, day date) on commit drop;
    -- rollup_second_days: the whole days a second connection classifies.
    --   Filled by pushledger_second_connection_runs (sql/engine/rollups.sql).
    --   Read by pushledger_whole_day_runs.
    create temp table if not exists rollup_second_days (app_id text, day date) on commit drop;
    -- rollup_send_set: sends to judge again and on what (scope 2: every fact, 1: their
    --   confirmations, 0: time and their slice only); one send may appear with several scopes.
    --   Filled by pushledger_refresh_slices, pushledger_stored_sends and pushledger_affected_sends
    --   (every affected send outside rollup_days),
    --   then by pushledger_refresh_rollups (only those of scope 2, after rollup_keys is built).
    --   Read by pushledger_refresh_rollups (into rollup_keys), pushledger_classify_send_set.
    create temp table if not exists rollup_send_set (app_id text, sent_at timestamptz, event_id uuid, scope smallint)
        on commit drop;
    -- rollup_stored: the taken sends still stored, with their notification and whether they are
    --   background pushes.
    --   Filled by pushledger_stored_sends (sql/engine/refresh_inputs.sql).
    --   Read by pushledger_refresh_slices, pushledger_affected_sends.
    create temp table if not exists rollup_stored (app_id text, notification_id uuid, background boolean)
        on commit drop;
    -- rollup_keys: each send of rollup_send_set once, with its widest scope, outside the whole days.
    --   Filled by pushledger_refresh_rollups.
    --   Read by pushledger_rejudge_outcomes (scopes 0 and 1), pushledger_refresh_rollups.
    create temp table if not exists rollup_keys (app_id text, sent_at timestamptz, event_id uuid, scope smallint)
        on commit drop;
    -- rollup_old: the send_outcomes rows of the sends judged again, before (rollup_keys' sends and
    --   the whole days' sends).
    --   Filled by pushledger_refresh_rollups.
    --   Read by pushledger_rejudge_outcomes, pushledger_replace_outcomes.
    create temp table if not exists rollup_old on commit drop as select * from send_outcomes with no data;
    -- rollup_new: the same sends' rows after.
    --   Filled by pushledger_refresh_rollups (from pushledger_classify_send_set,
    --   pushledger_rejudge_outcomes and pushledger_classify_days).
    --   Read by pushledger_replace_outcomes.
    create temp table if not exists rollup_new (like send_outcomes) on commit drop;
    -- rollup_delta: the rows that changed, signed (-1: a row leaving send_outcomes, +1: arriving).
    --   Filled by pushledger_replace_outcomes.
    --   Read by pushledger_apply_rollup_deltas, pushledger_refresh_landings.
    create temp table if not exists rollup_delta (sign integer, like send_outcomes) on commit drop;
    -- landing_notifications: the notifications whose landing rows are recomputed.
    --   Filled by pushledger_refresh_landings, or for a rebuild by
    --   pushledger_refresh_landing_notifications (sql/engine/landings.sql), which reads it.
    create temp table if not exists landing_notifications (app_id text, notification_id uuid) on commit drop;
    -- landing_new, landing_delta: those notifications' landing rows after, and the signed rows
    --   that changed (as rollup_new and rollup_delta for landings).
    --   Filled and read by pushledger_refresh_landing_notifications only.
    create temp table if not exists landing_new (like open_landing_notifications) on commit drop;
    create temp table if not exists landing_delta (sign integer, like open_landing_notifications) on commit drop;
    truncate rollup_taken, rollup_days, rollup_slice_days, rollup_second_days, rollup_send_set, rollup_stored,
             rollup_keys, rollup_old, rollup_new, rollup_delta, landing_notifications, landing_new, landing_delta;
end
$$;
