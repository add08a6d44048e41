-- Daily prompt-cohort rollups: a row holds one day's cohort members (by the day of their first
-- exposure to an experiment, or, with experiment null, of their first shown system prompt) per
-- cohort and platform, with the counts of pushledger_prompt_cohorts as of the refresh. Members'
-- facts look at their whole history (first prompt, state now, state a week after the grant), so
-- a change to any of them re-opens the member's days: the triggers below mark the installation,
-- and the refresh maps installations to their exposure and prompt days. hours_to_prompt keeps
-- one value per prompted member, so a median over any span of days is exact.

create or replace function pushledger_mark_dirty_prompt_members()
returns trigger
language plpgsql as $$
begin
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    select app_id, installation_id, max(occurred_at)
      from changed_rows group by 1, 2 order by 1, 2;
    return null;
end
$$;

create or replace function pushledger_mark_dirty_prompt_installation()
returns trigger
language plpgsql as $$
begin
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    values (new.app_id, new.installation_id, '-infinity');
    return null;
end
$$;

create or replace trigger settings_snapshots_prompt_dirty after insert on settings_snapshots
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_prompt_members();

create or replace trigger permission_prompts_prompt_dirty after insert on permission_prompts
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_prompt_members();

create or replace trigger experiment_exposures_prompt_dirty after insert on experiment_exposures
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_prompt_members();

-- Hours to prompt count from first_seen_at and --platform uses the latest platform; the writer
-- updates installations on every batch, so only these two columns re-open anything.
create or replace trigger installations_prompt_dirty after update on installations
    for each row when (old.first_seen_at is distinct from new.first_seen_at or old.platform is distinct from new.platform)
    execute function pushledger_mark_dirty_prompt_installation();

-- Recomputes one (app, experiment, day); experiment null: the as-treated cohorts.
create or replace function pushledger_rollup_prompt_day(p_app text, p_experiment text, p_day date, p_as_of timestamptz)
returns void
language sql as $$
    delete from prompt_cohorts_daily
     where app_id = p_app and experiment is not distinct from p_experiment and day = p_day;
    insert into prompt_cohorts_daily
    select p_app, p_experiment, p_day, m.cohort, m.platform, count(*),
           count(m.first_prompt_at),
           count(*) filter (where m.first_prompt_result = 'granted'),
           count(*) filter (where m.first_prompt_result = 'provisional'),
           count(*) filter (where m.can_display_now),
           count(*) filter (where m.can_display_now and m.first_prompt_at is null),
           count(*) filter (where m.retained_eligible),
           count(*) filter (where m.retained),
           coalesce(array_agg((extract(epoch from m.first_prompt_at - m.first_event_at) / 3600)::double precision)
                        filter (where m.first_prompt_at is not null), '{}'),
           p_as_of, now()
      from pushledger_prompt_cohort_members(
               p_app, p_day::timestamp at time zone 'UTC', (p_day + 1)::timestamp at time zone 'UTC', p_as_of,
               coalesce(p_experiment, ''), p_experiment is null, null) m
     group by m.cohort, m.platform
$$;

-- Refreshes the days of every marked installation as of p_as_of; returns how many (app,
-- experiment, day)s it recomputed. Takes turns like pushledger_refresh_rollups.
create or replace function pushledger_refresh_prompt_rollups(p_as_of timestamptz default now())
returns integer
language plpgsql as $$
declare
    v_days integer := 0;
    v_day record;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_prompt_rollups'));
    create temp table if not exists prompt_refresh_days (app_id text, experiment text, day date) on commit drop;
    truncate prompt_refresh_days;
    with taken as (
        delete from prompt_rollup_dirty_installations returning app_id, installation_id, due_at
    ), kept as (
        insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
        select app_id, installation_id, max(due_at) from taken where due_at > p_as_of group by 1, 2
    ), members as (
        select distinct app_id, installation_id from taken
    )
    -- Every day the installation could be a member of: a late earlier event moves it, so the
    -- day it leaves is recomputed as well as the day it joins.
    insert into prompt_refresh_days
    select e.app_id, e.experiment, pushledger_day(e.occurred_at)
      from members m
      join experiment_exposures e on e.app_id = m.app_id and e.installation_id = m.installation_id
    union
    select p.app_id, null, pushledger_day(p.occurred_at)
      from members m
      join permission_prompts p on p.app_id = m.app_id and p.installation_id = m.installation_id
     where p.prompt = 'system' and p.result <> 'already_determined';
    for v_day in select * from prompt_refresh_days order by 1, 2, 3
    loop
        perform pushledger_rollup_prompt_day(v_day.app_id, v_day.experiment, v_day.day, p_as_of);
        v_days := v_days + 1;
    end loop;
    return v_days;
end
$$;

-- pushledger_prompt_cohorts (sql/engine/prompt_cohorts.sql) read from the rollups over the days [p_from, p_to).
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

-- Recomputes every prompt-cohort rollup from scratch as of p_as_of (`pushledger rollup
-- --full`): every installation is marked, so every day any of them is a member of is
-- recomputed. Returns how many days it recomputed.
create or replace function pushledger_rebuild_prompt_rollups(p_as_of timestamptz default now())
returns integer
language plpgsql as $$
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_prompt_rollups'));
    delete from prompt_cohorts_daily;
    insert into prompt_rollup_dirty_installations (app_id, installation_id, due_at)
    select i.app_id, i.installation_id, '-infinity' from installations i;
    return pushledger_refresh_prompt_rollups(p_as_of);
end
$$;
