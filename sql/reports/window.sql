-- Report queries over the outcome engine, as functions engineers can call in psql. Every window
-- is [p_from, p_to) evaluated as of p_as_of (metrics.md "Times"). Silent loss per slice,
-- pushledger_silent_loss, is in sql/reports/silent_loss_rollups.sql: from the engine or the rollups.

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
