-- Delivery alerts count the installations behind the accepted sends as well. A device's sends
-- share its permission and channel state, so they fail or arrive together: an order's three
-- sends to one phone are closer to one observation than to three. A per-send z-test then
-- overstates certainty and pages on noise (found with the steady simulated fleet: orders
-- moving ±10 points at p < 0.001 on normal days). silent_loss_up and confirmed_delivery_down
-- run the z-test with installations as the sample sizes (README "Metric definitions"); a send
-- whose installation is unknown counts as its own unit.

drop function pushledger_alert_delivery_counts(timestamptz, timestamptz, timestamptz, interval);

create function pushledger_alert_delivery_counts(
    p_from timestamptz, p_to timestamptz, p_as_of timestamptz, p_window interval default '24 hours')
returns table (app_id text, platform text, channel text, accepted bigint, silent_loss bigint, confirmed bigint,
               accepted_installations bigint)
language sql stable as $$
    select c.app_id, c.platform, c.channel,
           count(*) filter (where c.outcome not in ('rejected', 'pending')),
           count(*) filter (where c.outcome in ('blocked_app', 'blocked_channel', 'unconfirmed')),
           count(*) filter (where c.outcome in ('received', 'opened')),
           count(distinct coalesce(c.installation_id, c.event_id)) filter (where c.outcome not in ('rejected', 'pending'))
      from (select distinct s.app_id from sends s
             where s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of) apps
     cross join lateral pushledger_classified_sends(apps.app_id, p_from, p_to, p_as_of, p_window) c
     group by c.app_id, c.platform, c.channel
$$;
