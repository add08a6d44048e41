-- Continuous refresh (pushledger rollup --follow, docs/rollups.md "Following"): how long the
-- last pass took, and when each prompt-cohort mark was queued, so pushledger_rollup_status() can
-- say how old the oldest input not yet rolled up is.

-- The last pass: when its transaction began and how long it ran (null: before this migration).
alter table rollup_refresh_state
    add column pass_started_at timestamptz,
    add column pass_seconds    double precision;

-- When the mark was queued (existing marks: now, the migration's time).
alter table prompt_rollup_dirty_installations
    add column marked_at timestamptz not null default now();
