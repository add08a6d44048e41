-- Tap-through landing (metrics.md misrouted_open_rate; weekly report "tap-through landing"):
-- each open with the channel, campaign and provider of its notification's latest send attempt
-- (retries share the notification_id and its channel). `misrouted` is null when the open did
-- not report `landed`, so count(misrouted) is the rate's denominator.
create view open_landings as
select o.app_id, o.event_id, o.installation_id, o.platform, o.app_version, o.notification_id,
       o.action, o.link, o.landed, o.landed in ('fallback', 'rejected') as misrouted,
       o.at, o.occurred_at, o.received_at,
       s.channel, s.campaign, s.provider
  from notification_opens o
  left join lateral (
        select s.channel, s.campaign, s.provider
          from sends s
         where s.app_id = o.app_id and s.notification_id = o.notification_id
         order by s.sent_at desc, s.event_id desc
         limit 1) s on true;

grant select on open_landings to pushledger_reader;
