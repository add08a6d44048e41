-- Links of tapped notifications by host, and the last association check per host, for
-- `pushledger links check` and the weekly report's tap-through section.

-- The lower-cased host of an http(s) link; null for other schemes and malformed links.
create or replace function pushledger_link_host(p_link text)
returns text
language sql immutable as $$
select lower(substring(p_link from '^[hH][tT][tT][pP][sS]?://(?:[^/?#@]*@)?([^/?#:]+)'))
$$;

-- Opens of p_app since p_since by link: the links the association files must cover, with the
-- misrouted counts of open_landings (misrouted: landed on the fallback screen or rejected).
create or replace function pushledger_tapped_links(p_app text, p_since timestamptz)
returns table (host text, link text, opens bigint, landed_reported bigint, misrouted bigint)
language sql stable as $$
select pushledger_link_host(o.link), o.link, count(*), count(o.landed), 
       count(*) filter (where o.landed in ('fallback', 'rejected'))
  from notification_opens o
 where o.app_id = p_app and o.occurred_at >= p_since and pushledger_link_host(o.link) is not null
 group by 1, 2
 order by 1, 3 desc, 2
$$;

-- The last run's results per (app, domain).
drop view if exists link_check_latest;
create view link_check_latest as
select r.app_id, r.domain, r.checked_at, r.check_name, r.subject, r.verdict, r.passed, r.detail
  from link_check_results r
 where r.checked_at = (select max(l.checked_at) from link_check_results l
                        where l.app_id = r.app_id and l.domain = r.domain);

-- Per link host of opens in [p_from, p_to): the misrouted rate's counts beside the last
-- check's verdict (failing checks first, joined; 'pass' when all passed; null never checked).
create or replace function pushledger_link_host_landings(p_app text, p_from timestamptz, p_to timestamptz)
returns table (host text, opens bigint, landed_reported bigint, misrouted bigint,
               checked_at timestamptz, failed_checks bigint, verdict text)
language sql stable as $$
with hosts as (
    select pushledger_link_host(o.link) as host, count(*) as opens, count(o.landed) as landed_reported,
           count(*) filter (where o.landed in ('fallback', 'rejected')) as misrouted
      from notification_opens o
     where o.app_id = p_app and o.occurred_at >= p_from and o.occurred_at < p_to
       and pushledger_link_host(o.link) is not null
     group by 1)
select h.host, h.opens, h.landed_reported, h.misrouted, c.checked_at, c.failed, c.verdict
  from hosts h
  left join lateral (
        select max(l.checked_at) as checked_at, count(*) filter (where not l.passed) as failed,
               coalesce(string_agg(l.check_name || case when l.subject = '' then '' else ' ' || l.subject end
                                   || ': ' || l.verdict, '; ' order by l.id) filter (where not l.passed),
                                   'pass') as verdict
          from (select r.* from link_check_results r
                 where r.app_id = p_app and r.domain = h.host
                   and r.checked_at = (select max(x.checked_at) from link_check_results x
                                        where x.app_id = p_app and x.domain = h.host)) l
        having count(*) > 0) c on true
 order by h.opens desc, h.host
$$;

grant select on link_check_latest to pushledger_reader;
