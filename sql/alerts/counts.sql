-- Regression alerts (metrics.md "Regression alerts"): the counts each built-in rule compares,
-- as set-based functions over the outcome engine. A rule compares a recent window with a
-- baseline window per slice; Swift runs the z-test and decides. Each function returns the
-- numerator and denominator of the rule's rate for one window [p_from, p_to), evaluated as of
-- p_as_of (nothing after it counts).
-- Built from engine/outcome_counters.sql.

-- With each cause's count of unconfirmed sends (metrics.md "Why a send is unconfirmed"):
-- silent_loss_up names the cause whose rate moved most. accepted is the rates' denominator: the
-- accepted sends that could confirm (an unconfirmable send is in neither numerator nor
-- denominator, so a rise of them alone moves no rate); accepted_installations their installations.
drop function if exists pushledger_alert_delivery_counts(timestamptz, timestamptz, timestamptz, interval);
select pushledger_define($sql$
create function pushledger_alert_delivery_counts(
    p_from timestamptz, p_to timestamptz, p_as_of timestamptz, p_window interval default '24 hours')
returns table (app_id text, platform text, channel text, accepted bigint, silent_loss bigint, confirmed bigint,
               accepted_installations bigint, [[cause | {c} {t}]])
language sql stable as $$
    select g.app_id, g.platform, g.channel, max(r.denominator) filter (where r.rate = 'silent_loss_rate'),
           max(r.numerator) filter (where r.rate = 'silent_loss_rate'),
           max(r.numerator) filter (where r.rate = 'confirmed_delivery_rate'),
           g.accepted_installations, [[cause | g.{c}]]
      from (select c.app_id, c.platform, c.channel,
                   [[cause | count(*) filter (where pushledger_counts_in('{c}', c.outcome, c.token_invalid,
                                                                          c.to_invalid_token, c.cause)) as {c}]],
                   count(distinct coalesce(c.installation_id, c.event_id))
                       filter (where pushledger_counts_in('accepted', c.outcome, c.token_invalid, c.to_invalid_token)
                                 and not pushledger_counts_in('unconfirmable', c.outcome, c.token_invalid,
                                                              c.to_invalid_token))
                       as accepted_installations,
                   array_agg(c.outcome) as outcomes, array_agg(c.token_invalid) as token_invalid
              from (select distinct s.app_id from sends s
                     where s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of) apps
             cross join lateral pushledger_classified_sends(apps.app_id, p_from, p_to, p_as_of, p_window) c
             group by c.app_id, c.platform, c.channel) g
     cross join lateral pushledger_outcome_rates(g.outcomes, g.token_invalid) r
     group by g.app_id, g.platform, g.channel, g.accepted_installations, [[cause | g.{c}]]
$$
$sql$);

-- rejections_up, per app, provider and reason class: sends of the class over all sends of the
-- app and provider (pending sends stay in the denominator; a rejection is known at once).
-- Every class gets a row for every (app, provider) with sends, so a class that appears only
-- in the recent window still has a baseline of zero.
create or replace function pushledger_alert_rejection_counts(p_from timestamptz, p_to timestamptz, p_as_of timestamptz)
returns table (app_id text, provider text, reason_class text, sends bigint, rejected bigint)
language sql stable as $$
    with per_class as (
        select s.app_id, s.provider, pushledger_reason_class(s.provider, s.status, s.reason) as reason_class,
               count(*) as n
          from sends s
         where s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of
         group by 1, 2, 3
    ), totals as (
        select p.app_id, p.provider, sum(p.n)::bigint as sends from per_class p group by 1, 2
    )
    select t.app_id, t.provider, k.reason_class, t.sends, coalesce(p.n, 0)::bigint
      from totals t
     cross join pushledger_alert_reason_classes() k(reason_class)
      left join per_class p on p.app_id = t.app_id and p.provider = t.provider and p.reason_class = k.reason_class
$$;

-- opt_in_down, per app and platform: installations whose first system prompt (the earliest
-- shown one: already_determined shows nothing) falls in the window, and how many granted.
create or replace function pushledger_alert_opt_in_counts(p_from timestamptz, p_to timestamptz, p_as_of timestamptz)
returns table (app_id text, platform text, prompted bigint, granted bigint)
language sql stable as $$
    with first_prompts as (
        select distinct on (p.app_id, p.installation_id) p.app_id, p.platform, p.result, p.occurred_at
          from permission_prompts p
         where p.prompt = 'system' and p.result <> 'already_determined' and p.occurred_at <= p_as_of
         order by p.app_id, p.installation_id, p.occurred_at, p.received_at, p.event_id
    )
    select f.app_id, f.platform, count(*), count(*) filter (where f.result = 'granted')
      from first_prompts f
     where f.occurred_at >= p_from and f.occurred_at < p_to
     group by f.app_id, f.platform
$$;

-- ingest_stale, per app: the latest received_at of any telemetry event at or before p_at,
-- when it lies within p_lookback (apps silent for longer are retired: null). The writer keeps
-- installations.last_received_at (duplicates included: they prove the app is alive), so a
-- check at the present reads only that. A check in the past (`--at`) of an app that has sent
-- since falls back to the event tables; the contract refuses events whose time is over 30
-- days before or 1 day after receipt, which bounds occurred_at and prunes old partitions.
create or replace function pushledger_alert_latest_telemetry(p_at timestamptz, p_lookback interval default '7 days')
returns table (app_id text, latest_received_at timestamptz)
language sql stable as $$
    with per_app as (
        select i.app_id, max(i.last_received_at) as latest from installations i group by i.app_id
    ), as_of as (
        select p.app_id,
               case when p.latest <= p_at then p.latest else (
                   select max(t.received_at) from (
                       select e.received_at, e.occurred_at from settings_snapshots e where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from notification_receipts e
                           where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from notification_opens e where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from permission_prompts e where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from experiment_exposures e
                           where e.app_id = p.app_id
                       union all select e.received_at, e.occurred_at from token_registrations e
                           where e.app_id = p.app_id
                   ) t
                    where t.received_at > p_at - p_lookback and t.received_at <= p_at
                      and t.occurred_at >= p_at - p_lookback - interval '30 days'
                      and t.occurred_at <= p_at + interval '1 day')
               end as latest
          from per_app p
    )
    select a.app_id, case when a.latest > p_at - p_lookback then a.latest end from as_of a
$$;

-- Pipeline-health views for dashboards: what the reader may see of the writer's bookkeeping
-- (no raw event JSON, no key hashes).
drop view if exists ingested_events;
create view ingested_events as
select e.app_id, e.received_at from event_ids e;

drop view if exists failed_event_reasons;
create view failed_event_reasons as
select f.app_id, f.endpoint, f.error_code, f.received_at from failed_events f;

grant select on ingested_events, failed_event_reasons to pushledger_reader;
