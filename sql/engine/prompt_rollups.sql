-- Daily prompt-cohort rollups (docs/rollups.md "Prompt cohorts"): a row of prompt_cohorts_daily
-- holds one day's cohort members (by the day of their first exposure to an experiment, or, with
-- experiment null, of their first shown system prompt) per cohort and platform, with the counts
-- of pushledger_prompt_cohorts. The members themselves are kept in prompt_cohort_members (one
-- row each, as of prompt_rollup_state.as_of), and the rollups are, at all times, their grouping.
-- A member's facts look at its installation's whole history (first prompt, state now, state a
-- week after the grant): its writers mark the installation, and a refresh recomputes the
-- marked installations' rows, keeps those that did not change, and re-groups only the days whose
-- members changed. hours_to_prompt keeps one value per prompted member (sorted), so a median over
-- any span of days is exact.

-- Snapshots, prompts and exposures mark their installations as they are written
-- (pushledger_queue_telemetry, sql/engine/dirty_days.sql).
drop trigger if exists settings_snapshots_prompt_dirty on settings_snapshots;
drop trigger if exists permission_prompts_prompt_dirty on permission_prompts;
drop trigger if exists experiment_exposures_prompt_dirty on experiment_exposures;
drop function if exists pushledger_mark_dirty_prompt_members();

-- Reads the changed installation row; writes prompt_rollup_dirty_installations.
create or replace function pushledger_mark_dirty_prompt_installation()
returns trigger
language plpgsql as $$
begin
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    values (new.app_id, new.installation_id, '-infinity');
    return null;
end
$$;

-- Hours to prompt count from first_seen_at and --platform uses the latest platform; the writer
-- updates installations on every batch, so only these two columns re-open anything.
create or replace trigger installations_prompt_dirty after update on installations
    for each row when (old.first_seen_at is distinct from new.first_seen_at
                       or old.platform is distinct from new.platform)
    execute function pushledger_mark_dirty_prompt_installation();

-- Re-groups the given (experiment, day)s of p_app's prompt_cohort_members (experiment '': the
-- as-treated cohorts, null in the rollups) into prompt_cohorts_daily: an index range of one
-- day's members each.
-- Reads prompt_cohort_members; writes prompt_cohorts_daily.
create or replace function pushledger_group_prompt_days(
    p_as_of timestamptz, p_app text, p_experiments text[], p_days date[])
returns void
language sql as $$
    delete from prompt_cohorts_daily r
     using unnest(p_experiments, p_days) g (experiment, day)
     where r.app_id = p_app and r.day = g.day and coalesce(r.experiment, '') = g.experiment;
    insert into prompt_cohorts_daily
    select p_app, nullif(m.experiment, ''), m.day, m.cohort, m.platform, count(*),
           count(m.first_prompt_at),
           count(*) filter (where m.first_prompt_result = 'granted'),
           count(*) filter (where m.first_prompt_result = 'provisional'),
           count(*) filter (where m.can_display_now),
           count(*) filter (where m.can_display_now and m.first_prompt_at is null),
           count(*) filter (where m.retained_eligible),
           count(*) filter (where m.retained),
           coalesce(array_agg(h.hours order by h.hours) filter (where m.first_prompt_at is not null), '{}'),
           p_as_of, now()
      from unnest(p_experiments, p_days) g (experiment, day)
      join prompt_cohort_members m on m.app_id = p_app and m.experiment = g.experiment and m.day = g.day
     cross join lateral (
           select (extract(epoch from m.first_prompt_at - m.first_event_at) / 3600)::double precision as hours) h
     group by m.experiment, m.day, m.cohort, m.platform
$$;

-- Recomputes the member rows of p_app's installations p_installations (each once) as of
-- p_as_of: the rows that changed replace the stored ones, and the (experiment, day)s they leave
-- or join are re-grouped. Returns how many (experiment, day)s moved. Planned with the set's
-- real size (pushledger_prompt_member_facts reads a small set by index); jit is off: compiling
-- these plans costs more than running them (~1.5 s against ~0.6 s for a week's 35,000 members).
-- Reads pushledger_prompt_member_facts, prompt_cohort_members; writes prompt_member_changes
-- (its own temporary table: filled and read here only), prompt_cohort_members, and through
-- pushledger_group_prompt_days prompt_cohorts_daily.
create or replace function pushledger_apply_prompt_members(p_as_of timestamptz, p_app text, p_installations uuid[])
returns integer
language plpgsql set plan_cache_mode = force_custom_plan set jit = off as $$
declare
    v_experiments text[];
    v_days date[];
begin
    if to_regclass('pg_temp.prompt_member_changes') is null then
        create temp table prompt_member_changes (fresh boolean, like prompt_cohort_members) on commit drop;
    end if;
    truncate prompt_member_changes;
    insert into prompt_member_changes
    with fresh as materialized (
        select * from pushledger_prompt_member_facts(p_as_of, p_app, p_installations)
    ), stored as materialized (
        select m.* from prompt_cohort_members m where m.app_id = p_app and m.installation_id = any (p_installations)
    )
    select false, * from (select * from stored except select * from fresh) gone
    union all
    select true, * from (select * from fresh except select * from stored) came;

    delete from prompt_cohort_members m using prompt_member_changes c
     where not c.fresh and m.app_id = p_app and m.installation_id = c.installation_id and m.experiment = c.experiment;
    insert into prompt_cohort_members
    select c.app_id, c.installation_id, c.experiment, c.day, c.joined_at, c.cohort, c.platform, c.first_event_at,
           c.first_prompt_at, c.first_prompt_result, c.can_display_now, c.retained_eligible, c.retained
      from prompt_member_changes c where c.fresh;

    select array_agg(g.experiment), array_agg(g.day) into v_experiments, v_days
      from (select distinct c.experiment, c.day from prompt_member_changes c) g;
    perform pushledger_group_prompt_days(p_as_of, p_app, v_experiments, v_days) where v_days is not null;
    return coalesce(cardinality(v_days), 0);
end
$$;

-- Records the as_of the members now hold.
-- Reads nothing; writes prompt_rollup_state.
create or replace function pushledger_record_prompt_refresh(p_as_of timestamptz)
returns void
language sql as $$
    insert into prompt_rollup_state (as_of, refreshed_at) values (p_as_of, now())
    on conflict (singleton) do update set as_of = excluded.as_of, refreshed_at = excluded.refreshed_at
$$;

drop function if exists pushledger_rollup_prompt_day(text, text, date, timestamptz);

-- Brings the members and their rollups up to date as of p_as_of from the marked installations:
-- returns how many (app, experiment, day)s moved. The first refresh (no prompt_rollup_state)
-- and one as of an earlier time than the members hold rebuild. Takes turns like
-- pushledger_refresh_rollups.
-- Reads prompt_rollup_state, prompt_rollup_dirty_installations (and empties it of what
-- is due); writes through pushledger_apply_prompt_members, prompt_rollup_state.
create or replace function pushledger_refresh_prompt_rollups(p_as_of timestamptz default now())
returns integer
language plpgsql as $$
declare
    v_last timestamptz;
    v_app record;
    v_apps text[];
    v_installations uuid[];
    v_moved integer := 0;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_prompt_rollups'));
    select s.as_of into v_last from prompt_rollup_state s;
    if v_last is null or v_last > p_as_of then
        return pushledger_rebuild_prompt_rollups(p_as_of);
    end if;
    -- Every mark is taken and its installation recomputed; a mark due after as_of (an event
    -- dated after it) is put back, so refreshes recompute it until one as of its time has.
    with taken as (
        delete from prompt_rollup_dirty_installations returning app_id, installation_id, due_at
    ), kept as (
        insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
        select t.app_id, t.installation_id, max(t.due_at) from taken t where t.due_at > p_as_of group by 1, 2
    )
    select array_agg(t.app_id), array_agg(t.installation_id) into v_apps, v_installations
      from (select distinct t.app_id, t.installation_id from taken t) t;
    for v_app in select u.app_id, array_agg(u.installation_id) as ids
                   from unnest(v_apps, v_installations) u(app_id, installation_id) group by 1 order by 1
    loop
        v_moved := v_moved + pushledger_apply_prompt_members(p_as_of, v_app.app_id, v_app.ids);
    end loop;
    perform pushledger_record_prompt_refresh(p_as_of);
    return v_moved;
end
$$;

-- pushledger_prompt_cohorts (sql/engine/prompt_cohorts.sql) read from the rollups over the days [p_from, p_to).
-- Reads prompt_cohorts_daily; writes nothing.
create or replace function pushledger_rollup_prompt_cohorts(
    p_app text, p_from date, p_to date, p_experiment text default 'push_prompt_timing',
    p_as_treated boolean default false, p_platform text default null)
returns table (
    cohort text, installs bigint, prompted bigint, granted bigint, provisional bigint, reached bigint,
    granted_without_prompt bigint, retained_eligible bigint, retained bigint,
    median_hours_to_prompt double precision)
language sql stable as $$
with days as (
    select r.* from prompt_cohorts_daily r
     where r.app_id = p_app and r.day >= p_from and r.day < p_to
       and r.experiment is not distinct from (case when p_as_treated then null else p_experiment end)
       and (p_platform is null or r.platform = p_platform)
), medians as (
    select d.cohort, percentile_cont(0.5) within group (order by h) as median
      from days d cross join unnest(d.hours_to_prompt) h
     group by d.cohort
)
select d.cohort, sum(d.installs), sum(d.prompted), sum(d.granted), sum(d.provisional), sum(d.reached),
       sum(d.granted_without_prompt), sum(d.retained_eligible), sum(d.retained), m.median
  from days d left join medians m on m.cohort = d.cohort
 group by d.cohort, m.median
 order by d.cohort
$$;

-- Recomputes every member and prompt-cohort rollup from scratch as of p_as_of (`pushledger
-- rollup --full`): per app, every installation's members in one set-based pass, then every
-- day grouped once. Marks due after as_of are kept. Returns how many (app, experiment, day)s it
-- grouped.
-- Reads prompt_rollup_dirty_installations, installations, pushledger_prompt_member_facts;
-- writes prompt_cohort_members, prompt_cohorts_daily, prompt_rollup_state.
create or replace function pushledger_rebuild_prompt_rollups(p_as_of timestamptz default now())
returns integer
language plpgsql set plan_cache_mode = force_custom_plan set jit = off as $$
declare
    v_app text;
    v_experiments text[];
    v_days date[];
    v_groups integer := 0;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_prompt_rollups'));
    with taken as (
        delete from prompt_rollup_dirty_installations returning app_id, installation_id, due_at
    )
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    select t.app_id, t.installation_id, max(t.due_at) from taken t where t.due_at > p_as_of group by 1, 2;
    delete from prompt_cohort_members;
    delete from prompt_cohorts_daily;
    for v_app in select distinct i.app_id from installations i order by 1
    loop
        insert into prompt_cohort_members select * from pushledger_prompt_member_facts(p_as_of, v_app);
        select array_agg(g.experiment), array_agg(g.day) into v_experiments, v_days
          from (select distinct m.experiment, m.day from prompt_cohort_members m where m.app_id = v_app) g;
        perform pushledger_group_prompt_days(p_as_of, v_app, v_experiments, v_days) where v_days is not null;
        v_groups := v_groups + coalesce(cardinality(v_days), 0);
    end loop;
    perform pushledger_record_prompt_refresh(p_as_of);
    return v_groups;
end
$$;
