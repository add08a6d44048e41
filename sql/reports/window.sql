-- Report queries over the outcome engine, as functions engineers can call in psql. Every window
-- is [p_from, p_to) evaluated as of p_as_of (metrics.md "Times").

-- Outcome counts per slice of the dimensions named in p_by (any of channel, platform,
-- app_version, campaign, day, provider); a dimension not named is null in every row.
-- Rates are left to the caller: each needs its numerator and denominator anyway.
create or replace function pushledger_silent_loss(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now(),
    p_window interval default '24 hours', p_by text[] default '{}')
returns table (
    channel text, platform text, app_version text, campaign text, day date, provider text,
    sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint,
    blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint,
    token_invalid bigint, to_invalid_token bigint)
language sql stable as $$
select case when 'channel' = any(p_by) then c.channel end,
       case when 'platform' = any(p_by) then c.platform end,
       case when 'app_version' = any(p_by) then c.app_version end,
       case when 'campaign' = any(p_by) then c.campaign end,
       case when 'day' = any(p_by) then c.day end,
       case when 'provider' = any(p_by) then c.provider end,
       count(*),
       count(*) filter (where c.outcome not in ('rejected', 'pending')),
       count(*) filter (where c.outcome = 'rejected'),
       count(*) filter (where c.outcome = 'pending'),
       count(*) filter (where c.outcome = 'opened'),
       count(*) filter (where c.outcome = 'received'),
       count(*) filter (where c.outcome = 'blocked_app'),
       count(*) filter (where c.outcome = 'blocked_channel'),
       count(*) filter (where c.outcome = 'unconfirmed'),
       count(*) filter (where c.outcome = 'unattributed'),
       count(*) filter (where c.token_invalid),
       count(*) filter (where c.to_invalid_token)
  from pushledger_classified_sends(p_app, p_from, p_to, p_as_of, p_window) c
 group by 1, 2, 3, 4, 5, 6
 order by 1, 2, 3, 4, 5, 6
$$;

-- Provider rejections: one row per provider with its totals (reason_class, reason and status
-- null), then one row per (provider, reason class, reason, status) with its rejections.
-- `to_invalid_token` counts sends to a token already known invalid at send time.
create or replace function pushledger_rejections(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now())
returns table (
    provider text, reason_class text, reason text, status integer,
    sends bigint, rejected bigint, token_invalid bigint, to_invalid_token bigint)
language sql stable as $$
with c as (
    select * from pushledger_classified_sends(p_app, p_from, p_to, p_as_of)
)
select c.provider, null::text, null::text, null::integer, count(*),
       count(*) filter (where c.outcome = 'rejected'),
       count(*) filter (where c.token_invalid), count(*) filter (where c.to_invalid_token)
  from c group by c.provider
union all
select c.provider, c.reason_class, c.reason, c.status, count(*), count(*),
       count(*) filter (where c.token_invalid), count(*) filter (where c.to_invalid_token)
  from c where c.outcome = 'rejected'
 group by c.provider, c.reason_class, c.reason, c.status
 order by 1, 2 nulls first, 3, 4
$$;
