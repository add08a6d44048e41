-- Every rate of metrics.md "Rates", defined once: reports, alerts and dashboards read them here.

-- Rates per rollup row, with numerators and denominators (metrics.md "Rates"); null when the
-- denominator is 0.
drop view if exists send_rollup_rates_daily;
create view send_rollup_rates_daily as
select r.*,
       r.blocked_app + r.blocked_channel + r.unconfirmed as silent_loss,
       (r.blocked_app + r.blocked_channel + r.unconfirmed)::double precision / nullif(r.accepted, 0) as silent_loss_rate,
       (r.blocked_app + r.blocked_channel)::double precision / nullif(r.accepted, 0) as known_blocked_rate,
       r.unconfirmed::double precision / nullif(r.accepted, 0) as unconfirmed_rate,
       (r.received + r.opened)::double precision / nullif(r.accepted, 0) as confirmed_delivery_rate,
       r.opened::double precision / nullif(r.accepted, 0) as open_rate,
       r.rejected::double precision / nullif(r.sends, 0) as rejection_rate,
       r.token_invalid::double precision / nullif(r.sends, 0) as token_invalid_rate,
       r.accepted < 30 as low_volume
  from send_rollups_daily r;

grant select on send_rollup_rates_daily to pushledger_reader;
