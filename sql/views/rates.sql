-- Every rate of metrics.md "Rates" per rollup row and per set of classified sends, from
-- pushledger_rates (sql/engine/outcome_counters.sql: the one place the counters are combined
-- into rates): the reports, the rollup view, the alert counts, the prompt cohorts' downstream
-- figures and the dashboards read them here (Swift's PushLedgerRules.OutcomeRates computes the
-- same table where there is no database, e.g. the simulator's truth; RatesTests holds the two
-- equal).
-- Built from engine/outcome_counters.sql.

drop view if exists send_rollup_rates_daily;

-- The rates of a set of classified sends, from their outcomes and token_invalid flags (the
-- arrays hold one element a send: for the sets of an alert window or a report, not of years),
-- counted as sql/engine/outcome_counters.sql defines the counters.
select pushledger_define($sql$
create or replace function pushledger_outcome_rates(p_outcomes text[], p_token_invalid boolean[])
returns table (rate text, numerator bigint, denominator bigint, value double precision, low_volume boolean)
language sql immutable parallel safe as $$
select r.*
  from (select [[rate_input | count(*) filter (where pushledger_counts_in('{c}', u.outcome, u.token_invalid, null))
                                  as {c}]]
          from unnest(p_outcomes, p_token_invalid) u(outcome, token_invalid)) c
 cross join lateral pushledger_rates([[rate_input | p_{c} => c.{c}]]) r
$$
$sql$);

-- Rates per rollup row, with the numerators the dashboards sum (silent_loss, known_blocked,
-- confirmed) and the denominator of silent loss and confirmed delivery (could_confirm: accepted
-- sends but the unconfirmable); low_volume: of the rates over accepted sends. With the cause
-- and latency counts of the row (r.*), each cause's rate over accepted (metrics.md "Why a send
-- is unconfirmed") and late_share over received and opened ("Delivery latency"): what
-- dashboards chart causes over time from.
select pushledger_define($sql$
create view send_rollup_rates_daily as
select r.*,
       x.silent_loss, x.known_blocked, x.confirmed, x.could_confirm,
       x.silent_loss_rate, x.known_blocked_rate, x.unconfirmed_rate, x.confirmed_delivery_rate, x.open_rate,
       x.open_rate_of_received, x.rejection_rate, x.token_invalid_rate, x.unconfirmable_rate, x.low_volume,
       [[cause | r.{c}::double precision / nullif(r.accepted, 0) as {c}_rate]],
       ([[late | r.{c} | +]])::double precision / nullif(r.received + r.opened, 0) as late_share
  from send_rollups_daily r
 cross join lateral (
        select max(p.numerator) filter (where p.rate = 'silent_loss_rate') as silent_loss,
               max(p.numerator) filter (where p.rate = 'known_blocked_rate') as known_blocked,
               max(p.numerator) filter (where p.rate = 'confirmed_delivery_rate') as confirmed,
               max(p.denominator) filter (where p.rate = 'silent_loss_rate') as could_confirm,
               max(p.value) filter (where p.rate = 'silent_loss_rate') as silent_loss_rate,
               max(p.value) filter (where p.rate = 'known_blocked_rate') as known_blocked_rate,
               max(p.value) filter (where p.rate = 'unconfirmed_rate') as unconfirmed_rate,
               max(p.value) filter (where p.rate = 'confirmed_delivery_rate') as confirmed_delivery_rate,
               max(p.value) filter (where p.rate = 'open_rate') as open_rate,
               max(p.value) filter (where p.rate = 'open_rate_of_received') as open_rate_of_received,
               max(p.value) filter (where p.rate = 'rejection_rate') as rejection_rate,
               max(p.value) filter (where p.rate = 'token_invalid_rate') as token_invalid_rate,
               max(p.value) filter (where p.rate = 'unconfirmable_rate') as unconfirmable_rate,
               bool_or(p.low_volume) filter (where p.rate = 'silent_loss_rate') as low_volume
          from pushledger_rates([[rate_input | p_{c} => r.{c}]]) p) x
$sql$);

grant select on send_rollup_rates_daily to pushledger_reader;
