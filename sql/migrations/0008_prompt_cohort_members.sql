-- Prompt-cohort members kept per member (docs/rollups.md "Prompt cohorts"): the rollups in
-- prompt_cohorts_daily are, at all times, the grouping of these rows, as sends' rollups are the
-- grouping of send_outcomes. A refresh recomputes the rows of the installations it finds
-- marked, and re-groups only the (app, experiment, day)s whose rows changed.

-- One row per cohort member, as of prompt_rollup_state.as_of (sql/engine/prompt_cohorts.sql,
-- pushledger_prompt_member_facts). experiment '' holds the as-treated cohorts (cohort: the
-- placement of the first shown system prompt); an experiment name is a slug [a-z0-9_]{1,64},
-- never ''. day: the UTC day of joined_at (first exposure to the experiment, or first shown
-- system prompt). first_event_at is the installation's first_seen_at (hours to prompt count from
-- it); platform its latest platform.
create table prompt_cohort_members (
    app_id              text        not null,
    installation_id     uuid        not null,
    experiment          text        not null,
    day                 date        not null,
    joined_at           timestamptz not null,
    cohort              text        not null,
    platform            text        not null,
    first_event_at      timestamptz not null,
    first_prompt_at     timestamptz,          -- null: never prompted
    first_prompt_result text,
    can_display_now     boolean     not null,  -- as-of state at as_of (unknown counts as cannot)
    retained_eligible   boolean     not null,  -- granted at g, and a snapshot in [g + 7 days, as_of]
    retained            boolean     not null,  -- and the as-of state at g + 7 days can display
    primary key (app_id, installation_id, experiment)
);
-- A group of the rollups is an index range: one (app, experiment, day)'s members.
create index prompt_cohort_members_day on prompt_cohort_members (app_id, experiment, day);

-- The as_of the members were last computed as of. No row (a database whose rollups predate the
-- members table, or a new one): the next refresh rebuilds, as does one as of an earlier time.
create table prompt_rollup_state (
    singleton    boolean     primary key default true check (singleton),
    as_of        timestamptz not null,
    refreshed_at timestamptz not null
);

grant select on prompt_cohort_members, prompt_rollup_state to pushledger_reader;
