-- Every rate of metrics.md "Rates", defined once: the reports, the rollup view, the alert counts,
-- the prompt cohorts' downstream figures and the dashboards read them here (Swift's
-- PushLedgerRules.OutcomeRates computes the same table where there is no database, e.g. the
-- simulator's truth; RatesTests holds the two equal).

-- The rates of one set of outcome counts, one row a rate in report order: numerator,
-- denominator, value (null when the denominator is 0) and low_volume (a denominator under 30,
-- metrics.md "Low volume"). Sends that cannot confirm (unconfirmable) leave the denominators of
-- the rates that need a confirmation: silent loss, unconfirmed, confirmed delivery.
drop view if exists send_rollup_rates_daily;
drop function if exists pushledger_rates(bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint);
drop function if exists pushledger_rate_columns(bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint,
                                                bigint);
create or replace function pushledger_rates(
    p_sends bigint, p_accepted bigint, p_rejected bigint, p_opened bigint, p_received bigint,
    p_blocked_app bigint, p_blocked_channel bigint, p_unconfirmed bigint, p_token_invalid bigint,
    p_unconfirmable bigint)
returns table (rate text, numerator bigint, denominator bigint, value double precision, low_volume boolean)
language sql immutable parallel safe as $$
select r.rate, r.numerator, r.denominator, r.numerator::double precision / nullif(r.denominator, 0),
       r.denominator < 30
  from (values (1, 'silent_loss_rate', p_blocked_app + p_blocked_channel + p_unconfirmed,
                   p_accepted - p_unconfirmable),
               (2, 'known_blocked_rate', p_blocked_app + p_blocked_channel, p_accepted),
               (3, 'unconfirmed_rate', p_unconfirmed, p_accepted - p_unconfirmable),
               (4, 'confirmed_delivery_rate', p_received + p_opened, p_accepted - p_unconfirmable),
               (5, 'open_rate', p_opened, p_accepted),
               (6, 'open_rate_of_received', p_opened, p_received + p_opened),
               (7, 'rejection_rate', p_rejected, p_sends),
               (8, 'token_invalid_rate', p_token_invalid, p_sends),
               (9, 'unconfirmable_rate', p_unconfirmable, p_accepted)) r(position, rate, numerator, denominator)
 order by r.position
$$;

-- The same rates as one row, a numerator and a denominator column a rate (<rate>_numerator,
-- <rate>_denominator): what the reports read beside their counts (Reports.OutcomeCounts).
create or replace function pushledger_rate_columns(
    p_sends bigint, p_accepted bigint, p_rejected bigint, p_opened bigint, p_received bigint,
    p_blocked_app bigint, p_blocked_channel bigint, p_unconfirmed bigint, p_token_invalid bigint,
    p_unconfirmable bigint)
returns table (silent_loss_rate_numerator bigint, silent_loss_rate_denominator bigint,
               known_blocked_rate_numerator bigint, known_blocked_rate_denominator bigint,
               unconfirmed_rate_numerator bigint, unconfirmed_rate_denominator bigint,
               confirmed_delivery_rate_numerator bigint, confirmed_delivery_rate_denominator bigint,
               open_rate_numerator bigint, open_rate_denominator bigint,
               open_rate_of_received_numerator bigint, open_rate_of_received_denominator bigint,
               rejection_rate_numerator bigint, rejection_rate_denominator bigint,
               token_invalid_rate_numerator bigint, token_invalid_rate_denominator bigint,
               unconfirmable_rate_numerator bigint, unconfirmable_rate_denominator bigint)
language sql immutable parallel safe as $$
select max(p.numerator) filter (where p.rate = 'silent_loss_rate'),
       max(p.denominator) filter (where p.rate = 'silent_loss_rate'),
       max(p.numerator) filter (where p.rate = 'known_blocked_rate'),
       max(p.denominator) filter (where p.rate = 'known_blocked_rate'),
       max(p.numerator) filter (where p.rate = 'unconfirmed_rate'),
       max(p.denominator) filter (where p.rate = 'unconfirmed_rate'),
       max(p.numerator) filter (where p.rate = 'confirmed_delivery_rate'),
       max(p.denominator) filter (where p.rate = 'confirmed_delivery_rate'),
       max(p.numerator) filter (where p.rate = 'open_rate'), max(p.denominator) filter (where p.rate = 'open_rate'),
       max(p.numerator) filter (where p.rate = 'open_rate_of_received'),
       max(p.denominator) filter (where p.rate = 'open_rate_of_received'),
       max(p.numerator) filter (where p.rate = 'rejection_rate'),
       max(p.denominator) filter (where p.rate = 'rejection_rate'),
       max(p.numerator) filter (where p.rate = 'token_invalid_rate'),
       max(p.denominator) filter (where p.rate = 'token_invalid_rate'),
       max(p.numerator) filter (where p.rate = 'unconfirmable_rate'),
       max(p.denominator) filter (where p.rate = 'unconfirmable_rate')
  from pushledger_rates(p_sends, p_accepted, p_rejected, p_opened, p_received, p_blocked_app, p_blocked_channel,
                        p_unconfirmed, p_token_invalid, p_unconfirmable) p
$$;

-- The rates of a set of classified sends, from their outcomes and token_invalid flags (the
-- arrays hold one element a send: for the sets of an alert window or a report, not of years),
-- counted as sql/engine/outcome_counters.sql defines the counters.
create or replace function pushledger_outcome_rates(p_outcomes text[], p_token_invalid boolean[])
returns table (rate text, numerator bigint, denominator bigint, value double precision, low_volume boolean)
language sql immutable parallel safe as $$
select r.*
  from (select count(*) filter (where pushledger_counts_in('sends', u.outcome, u.token_invalid, null)) as sends,
               count(*) filter (where pushledger_counts_in('accepted', u.outcome, u.token_invalid, null)) as accepted,
               count(*) filter (where pushledger_counts_in('rejected', u.outcome, u.token_invalid, null)) as rejected,
               count(*) filter (where pushledger_counts_in('opened', u.outcome, u.token_invalid, null)) as opened,
               count(*) filter (where pushledger_counts_in('received', u.outcome, u.token_invalid, null)) as received,
               count(*) filter (where pushledger_counts_in('blocked_app', u.outcome, u.token_invalid, null))
                   as blocked_app,
               count(*) filter (where pushledger_counts_in('blocked_channel', u.outcome, u.token_invalid, null))
                   as blocked_channel,
               count(*) filter (where pushledger_counts_in('unconfirmed', u.outcome, u.token_invalid, null))
                   as unconfirmed,
               count(*) filter (where pushledger_counts_in('token_invalid', u.outcome, u.token_invalid, null))
                   as token_invalid,
               count(*) filter (where pushledger_counts_in('unconfirmable', u.outcome, u.token_invalid, null))
                   as unconfirmable
          from unnest(p_outcomes, p_token_invalid) u(outcome, token_invalid)) c
 cross join lateral pushledger_rates(c.sends, c.accepted, c.rejected, c.opened, c.received, c.blocked_app,
                                     c.blocked_channel, c.unconfirmed, c.token_invalid, c.unconfirmable) r
$$;

-- Rates per rollup row, with the numerators the dashboards sum (silent_loss, known_blocked,
-- confirmed) and the denominator of silent loss and confirmed delivery (could_confirm: accepted
-- sends but the unconfirmable); low_volume: of the rates over accepted sends. With the v1.2 cause and latency
-- counts of the row (r.*), each cause's rate over accepted (metrics.md "Why a send is
-- unconfirmed") and late_share over received and opened ("Delivery latency"): what dashboards
-- chart causes over time from.
drop view if exists send_rollup_rates_daily;
create view send_rollup_rates_daily as
select r.*,
       x.silent_loss, x.known_blocked, x.confirmed, x.could_confirm,
       x.silent_loss_rate, x.known_blocked_rate, x.unconfirmed_rate, x.confirmed_delivery_rate, x.open_rate,
       x.open_rate_of_received, x.rejection_rate, x.token_invalid_rate, x.unconfirmable_rate, x.low_volume,
       r.superseded::double precision / nullif(r.accepted, 0) as superseded_rate,
       r.app_stopped::double precision / nullif(r.accepted, 0) as app_stopped_rate,
       r.expired::double precision / nullif(r.accepted, 0) as expired_rate,
       r.device_inactive::double precision / nullif(r.accepted, 0) as device_inactive_rate,
       r.unexplained::double precision / nullif(r.accepted, 0) as unexplained_rate,
       (r.latency_lt_6h + r.latency_lt_24h + r.latency_ge_24h)::double precision / nullif(r.received + r.opened, 0)
           as late_share
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
          from pushledger_rates(r.sends, r.accepted, r.rejected, r.opened, r.received, r.blocked_app,
                                r.blocked_channel, r.unconfirmed, r.token_invalid, r.unconfirmable) p) x;

grant select on send_rollup_rates_daily to pushledger_reader;
