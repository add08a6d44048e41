-- Days: the rollups' unit of time, the UTC day.

-- UTC day of a time: the rollups' day.
create or replace function pushledger_day(p_time timestamptz)
returns date
language sql immutable parallel safe as $$ select (p_time at time zone 'UTC')::date $$;
