-- Permission-prompt timing cohorts (metrics.md "Permission prompt timing").
--
-- Intent-to-treat: the variant of an installation's first exposure to p_experiment, for
-- installations whose first exposure falls in [p_from, p_to). As-treated (p_as_treated): the
-- placement of the first shown system prompt, for installations whose first such prompt falls
-- in the window. Nothing after p_as_of counts. p_platform (null: both) narrows the cohorts.

-- One row per cohort member with the facts the cohort figures count.
create or replace function pushledger_prompt_cohort_members(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now(),
    p_experiment text default 'push_prompt_timing', p_as_treated boolean default false,
    p_platform text default null)
returns table (
    cohort text, installation_id uuid, platform text, first_event_at timestamptz,
    first_prompt_at timestamptz,  -- first shown system prompt at or before as_of; null: never prompted
    first_prompt_result text,
    can_display_now boolean,      -- as-of state at as_of (unknown counts as cannot)
    retained_eligible boolean,    -- granted at g, and a snapshot in [g + 7 days, as_of]
    retained boolean)             -- as-of state at g + 7 days can display
language sql stable as $$
with exposed as (
    select distinct on (e.installation_id) e.installation_id, e.variant as cohort
      from experiment_exposures e
     where not p_as_treated and e.app_id = p_app and e.experiment = p_experiment
       and e.occurred_at >= p_from and e.occurred_at < p_to and e.occurred_at <= p_as_of
       and not exists (
            select 1 from experiment_exposures x
             where x.app_id = e.app_id and x.experiment = e.experiment
               and x.installation_id = e.installation_id and x.occurred_at < e.occurred_at)
     order by e.installation_id, e.occurred_at, e.received_at, e.event_id
), treated as (
    select distinct on (p.installation_id) p.installation_id, p.placement as cohort
      from permission_prompts p
     where p_as_treated and p.app_id = p_app and p.prompt = 'system' and p.result <> 'already_determined'
       and p.occurred_at >= p_from and p.occurred_at < p_to and p.occurred_at <= p_as_of
       and not exists (
            select 1 from permission_prompts x
             where x.app_id = p.app_id and x.installation_id = p.installation_id and x.prompt = 'system'
               and x.result <> 'already_determined' and x.occurred_at < p.occurred_at)
     order by p.installation_id, p.occurred_at, p.received_at, p.event_id
), members as (
    select * from exposed union all select * from treated
)
select m.cohort, m.installation_id, i.platform, i.first_seen_at,
       fp.occurred_at, fp.result,
       coalesce(now_state.can_display, false),
       fp.result = 'granted' and later.any_snapshot is not null,
       coalesce(fp.result = 'granted' and later.any_snapshot is not null and coalesce(week_state.can_display, false), false)
  from members m
  join installations i on i.app_id = p_app and i.installation_id = m.installation_id
  left join lateral (
        select p.occurred_at, p.result from permission_prompts p
         where p.app_id = p_app and p.installation_id = m.installation_id and p.prompt = 'system'
           and p.result <> 'already_determined' and p.occurred_at <= p_as_of
         order by p.occurred_at, p.received_at, p.event_id
         limit 1) fp on true
  left join lateral (
        select n.can_display from settings_snapshots n
         where n.app_id = p_app and n.installation_id = m.installation_id and n.occurred_at <= p_as_of
         order by n.occurred_at desc, n.received_at desc, n.event_id desc
         limit 1) now_state on true
  left join lateral (
        select 1 as any_snapshot from settings_snapshots n
         where fp.result = 'granted' and n.app_id = p_app and n.installation_id = m.installation_id
           and n.occurred_at >= fp.occurred_at + interval '7 days' and n.occurred_at <= p_as_of
         limit 1) later on true
  left join lateral (
        select n.can_display from settings_snapshots n
         where later.any_snapshot is not null and n.app_id = p_app and n.installation_id = m.installation_id
           and n.occurred_at <= fp.occurred_at + interval '7 days'
         order by n.occurred_at desc, n.received_at desc, n.event_id desc
         limit 1) week_state on true
 where p_platform is null or i.platform = p_platform
$$;

-- Counts per cohort; the caller turns them into rates, intervals and comparisons.
-- median_hours_to_prompt: percentile_cont(0.5) is the mean of the two middle values on an
-- even count, as metrics.md asks.
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
