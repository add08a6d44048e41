-- Permission-prompt timing cohorts (metrics.md "Permission prompt timing").
--
-- Intent-to-treat: the variant of an installation's first exposure to p_experiment, for
-- installations whose first exposure falls in [p_from, p_to). As-treated (p_as_treated): the
-- placement of the first shown system prompt, for installations whose first such prompt falls
-- in the window. Nothing after p_as_of counts. p_platform (null: both) narrows the cohorts.

-- A shown system prompt (metrics.md): the system dialog appeared; already_determined means the
-- OS answered without showing it.
-- Reads nothing; writes nothing.
create or replace function pushledger_shown_system_prompt(p_prompt text, p_result text)
returns boolean
language sql immutable parallel safe as $$ select p_prompt = 'system' and p_result <> 'already_determined' $$;

-- The cohort memberships of installations of p_app as of p_as_of, with the facts the cohort
-- figures count: one row per installation and experiment it was exposed to (experiment '' and
-- the first shown system prompt's placement: the as-treated cohorts). The one definition of the
-- members: the report's direct path, the refresh and the rebuild (sql/engine/prompt_rollups.sql)
-- all read it. p_installations (each once) are read by index, exactly those; null: every
-- installation of the app, in hash joins over its rows of whole tables (the rebuild). One app a
-- call: every table is narrowed by app_id alone and joined by installation_id, so the planner
-- sees the real sizes.
-- Reads installations, experiment_exposures, permission_prompts, settings_snapshots;
-- writes nothing.
create or replace function pushledger_prompt_member_facts(
    p_as_of timestamptz, p_app text, p_installations uuid[] default null)
returns table (
    app_id text, installation_id uuid, experiment text, day date, joined_at timestamptz, cohort text,
    platform text, first_event_at timestamptz,
    first_prompt_at timestamptz,  -- first shown system prompt at or before as_of; null: never prompted
    first_prompt_result text,
    can_display_now boolean,      -- as-of state at as_of (unknown counts as cannot)
    retained_eligible boolean,    -- granted at g, and a snapshot in [g + 7 days, as_of]
    retained boolean)             -- as-of state at g + 7 days can display
language sql stable as $$
with first_prompt as (
    select distinct on (p.installation_id) p.installation_id, p.occurred_at, p.result, p.placement
      from permission_prompts p
     where p.app_id = p_app and (p_installations is null or p.installation_id = any (p_installations))
       and pushledger_shown_system_prompt(p.prompt, p.result) and p.occurred_at <= p_as_of
     order by p.installation_id, p.occurred_at, p.received_at, p.event_id
), first_exposure as (
    select distinct on (e.installation_id, e.experiment) e.installation_id, e.experiment, e.occurred_at, e.variant
      from experiment_exposures e
     where e.app_id = p_app and (p_installations is null or e.installation_id = any (p_installations))
       and e.occurred_at <= p_as_of
     order by e.installation_id, e.experiment, e.occurred_at, e.received_at, e.event_id
), snapshot_facts as (
    -- One pass over the snapshots up to as_of: the latest one's state, whether one came a week
    -- or more after a grant, and the latest state at the grant's week.
    select s.installation_id,
           (array_agg(s.can_display order by s.occurred_at desc, s.received_at desc,
                      s.event_id desc))[1] as can_display_now,
           bool_or(s.occurred_at >= g.week_at) as later,
           (array_agg(s.can_display order by s.occurred_at desc, s.received_at desc, s.event_id desc)
                filter (where s.occurred_at <= g.week_at))[1] as week_state
      from settings_snapshots s
      left join (select f.installation_id, f.occurred_at + interval '7 days' as week_at
                   from first_prompt f where f.result = 'granted') g on g.installation_id = s.installation_id
     where s.app_id = p_app and (p_installations is null or s.installation_id = any (p_installations))
       and s.occurred_at <= p_as_of
     group by s.installation_id
), joined as (
    select x.installation_id, x.experiment, x.occurred_at, x.variant as cohort from first_exposure x
    union all
    select f.installation_id, '', f.occurred_at, f.placement from first_prompt f
)
select p_app, j.installation_id, j.experiment, pushledger_day(j.occurred_at), j.occurred_at, j.cohort,
       i.platform, i.first_seen_at, fp.occurred_at, fp.result,
       coalesce(sf.can_display_now, false),
       coalesce(fp.result = 'granted' and sf.later, false),
       coalesce(fp.result = 'granted' and sf.later and sf.week_state, false)
  from joined j
  join installations i on i.app_id = p_app and i.installation_id = j.installation_id
  left join first_prompt fp on fp.installation_id = j.installation_id
  left join snapshot_facts sf on sf.installation_id = j.installation_id
$$;

-- One row per cohort member of [p_from, p_to) with the facts the cohort figures count: the
-- members of pushledger_prompt_member_facts over the installations with an exposure (a shown
-- system prompt, as-treated) in the window. Planned with the set's real size, without jit.
-- Reads pushledger_prompt_member_facts, experiment_exposures, permission_prompts;
-- writes nothing.
create or replace function pushledger_prompt_cohort_members(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now(),
    p_experiment text default 'push_prompt_timing', p_as_treated boolean default false,
    p_platform text default null)
returns table (
    cohort text, installation_id uuid, platform text, first_event_at timestamptz,
    first_prompt_at timestamptz, first_prompt_result text,
    can_display_now boolean, retained_eligible boolean, retained boolean)
language plpgsql stable set plan_cache_mode = force_custom_plan set jit = off as $$
declare
    v_ids uuid[];
begin
    select coalesce(array_agg(distinct c.id), '{}') into v_ids from (
        select e.installation_id as id from experiment_exposures e
         where not p_as_treated and e.app_id = p_app and e.experiment = p_experiment
           and e.occurred_at >= p_from and e.occurred_at < p_to and e.occurred_at <= p_as_of
        union all
        select p.installation_id from permission_prompts p
         where p_as_treated and p.app_id = p_app and pushledger_shown_system_prompt(p.prompt, p.result)
           and p.occurred_at >= p_from and p.occurred_at < p_to and p.occurred_at <= p_as_of
    ) c;
    return query
    select m.cohort, m.installation_id, m.platform, m.first_event_at, m.first_prompt_at, m.first_prompt_result,
           m.can_display_now, m.retained_eligible, m.retained
      from pushledger_prompt_member_facts(p_as_of, p_app, v_ids) m
     where m.experiment = case when p_as_treated then '' else p_experiment end
       and m.joined_at >= p_from and m.joined_at < p_to
       and (p_platform is null or m.platform = p_platform);
end
$$;

-- Counts per cohort; the caller turns them into rates, intervals and comparisons.
-- median_hours_to_prompt: percentile_cont(0.5) is the mean of the two middle values on an
-- even count, as metrics.md asks.
-- Reads pushledger_prompt_cohort_members; writes nothing.
create or replace function pushledger_prompt_cohorts(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now(),
    p_experiment text default 'push_prompt_timing', p_as_treated boolean default false,
    p_platform text default null)
returns table (
    cohort text, installs bigint, prompted bigint, granted bigint, provisional bigint, reached bigint,
    granted_without_prompt bigint, retained_eligible bigint, retained bigint,
    median_hours_to_prompt double precision)
language sql stable as $$
select m.cohort, count(*),
       count(m.first_prompt_at),
       count(*) filter (where m.first_prompt_result = 'granted'),
       count(*) filter (where m.first_prompt_result = 'provisional'),
       count(*) filter (where m.can_display_now),
       count(*) filter (where m.can_display_now and m.first_prompt_at is null),
       count(*) filter (where m.retained_eligible),
       count(*) filter (where m.retained),
       percentile_cont(0.5) within group (
           order by extract(epoch from m.first_prompt_at - m.first_event_at) / 3600)
           filter (where m.first_prompt_at is not null)
  from pushledger_prompt_cohort_members(p_app, p_from, p_to, p_as_of, p_experiment, p_as_treated, p_platform) m
 group by m.cohort
 order by m.cohort
$$;

-- Downstream, descriptive only: outcomes of the window's sends to each cohort's installations.
-- Reads pushledger_prompt_cohort_members, pushledger_classified_sends; writes nothing.
create or replace function pushledger_prompt_cohort_sends(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now(),
    p_window interval default '24 hours', p_experiment text default 'push_prompt_timing',
    p_as_treated boolean default false, p_platform text default null)
returns table (cohort text, accepted bigint, opened bigint, silent_loss bigint)
language sql stable as $$
select m.cohort,
       count(*) filter (where c.outcome not in ('rejected', 'pending')),
       count(*) filter (where c.outcome = 'opened'),
       (select r.numerator from pushledger_outcome_rates(array_agg(c.outcome), array_agg(c.token_invalid)) r
         where r.rate = 'silent_loss_rate')
  from pushledger_prompt_cohort_members(p_app, p_from, p_to, p_as_of, p_experiment, p_as_treated, p_platform) m
  join pushledger_classified_sends(p_app, p_from, p_to, p_as_of, p_window) c on c.installation_id = m.installation_id
 group by m.cohort
 order by m.cohort
$$;
