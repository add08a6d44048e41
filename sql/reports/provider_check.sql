-- The provider cross-check (metrics.md "Provider cross-check"): per FCM day in
-- [p_from, p_to) — a day in America/Los_Angeles, so its window is that day's local midnight to
-- the next — and, with p_by_campaign, per analytics label matched to campaign ('' for the
-- unlabeled entry and sends without a campaign). FCM's side: counts summed, percents weighted
-- by countMessagesAccepted over the entries that carry them. PushLedger's side: the outcome
-- counts of pushledger_silent_loss (sql/reports/window.sql) for provider fcm over the same window. A side
-- missing on a day is null, never dropped. Rates and gap_pp are left to the caller. With
-- PushLedger's cause and latency counts (metrics.md "Why a send is unconfirmed"): superseded,
-- app_stopped and device_inactive stand beside FCM's collapsed, droppedAppForceStopped and
-- droppedDeviceInactive.
-- Built from engine/outcome_counters.sql.
drop function if exists pushledger_provider_check(text, date, date, boolean, timestamptz, interval);
select pushledger_define($sql$
create or replace function pushledger_provider_check(
    p_app text, p_from date, p_to date, p_by_campaign boolean default false,
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (
    day date, campaign text, fcm_entries bigint, count_messages_accepted bigint,
    delivered_pct double precision, pending_pct double precision, collapsed_pct double precision,
    dropped_too_many_pending_pct double precision, dropped_app_force_stopped_pct double precision,
    dropped_device_inactive_pct double precision, delivered_no_delay_pct double precision,
    [[outcome, cause, latency | {c} {t}]])
language sql stable as $$
with entries as (
    select f.day, case when p_by_campaign then f.analytics_label end as label,
           coalesce((f.entry #>> '{data,countMessagesAccepted}')::bigint, 0) as n,
           (f.entry #>> '{data,messageOutcomePercents,delivered}')::float8 as delivered,
           (f.entry #>> '{data,messageOutcomePercents,pending}')::float8 as pending,
           (f.entry #>> '{data,messageOutcomePercents,collapsed}')::float8 as collapsed,
           (f.entry #>> '{data,messageOutcomePercents,droppedTooManyPendingMessages}')::float8 as too_many,
           (f.entry #>> '{data,messageOutcomePercents,droppedAppForceStopped}')::float8 as force_stopped,
           (f.entry #>> '{data,messageOutcomePercents,droppedDeviceInactive}')::float8 as inactive,
           (f.entry #>> '{data,deliveryPerformancePercents,deliveredNoDelay}')::float8 as no_delay
      from fcm_delivery_data f
     where f.app_id = p_app and f.day >= p_from and f.day < p_to
), fcm as (
    select e.day, e.label, count(*) as entries, sum(e.n) as n,
           sum(e.n * e.delivered) / nullif(sum(e.n) filter (where e.delivered is not null), 0) as delivered,
           sum(e.n * e.pending) / nullif(sum(e.n) filter (where e.pending is not null), 0) as pending,
           sum(e.n * e.collapsed) / nullif(sum(e.n) filter (where e.collapsed is not null), 0) as collapsed,
           sum(e.n * e.too_many) / nullif(sum(e.n) filter (where e.too_many is not null), 0) as too_many,
           sum(e.n * e.force_stopped) / nullif(sum(e.n) filter (where e.force_stopped is not null), 0) as force_stopped,
           sum(e.n * e.inactive) / nullif(sum(e.n) filter (where e.inactive is not null), 0) as inactive,
           sum(e.n * e.no_delay) / nullif(sum(e.n) filter (where e.no_delay is not null), 0) as no_delay
      from entries e
     group by e.day, e.label
), ours as (
    select d.day as local_day, case when p_by_campaign then coalesce(s.campaign, '') end as label,
           [[outcome, cause, latency | s.{c}]]
      from (select g::date as day from generate_series(p_from::timestamp, p_to::timestamp - interval '1 day',
                                                       interval '1 day') g) d
     cross join lateral pushledger_silent_loss(
           p_app, d.day::timestamp at time zone 'America/Los_Angeles',
           (d.day + 1)::timestamp at time zone 'America/Los_Angeles', p_as_of, p_window,
           case when p_by_campaign then '{provider,campaign}'::text[] else '{provider}'::text[] end) s
     where s.provider = 'fcm'
)
select coalesce(f.day, o.local_day), nullif(coalesce(f.label, o.label), ''), f.entries, f.n,
       f.delivered, f.pending, f.collapsed, f.too_many, f.force_stopped, f.inactive, f.no_delay,
       [[outcome, cause, latency | o.{c}]]
  from fcm f
  full join ours o on o.local_day = f.day and o.label is not distinct from f.label
 order by 1, 2 nulls first
$$
$sql$);
