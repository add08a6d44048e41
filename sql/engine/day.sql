-- Days and look-backs: the rollups' unit of time, and how far before a window the engine reads.

-- UTC day of a time: the rollups' day.
-- Reads nothing; writes nothing.
create or replace function pushledger_day(p_time timestamptz)
returns date
language sql immutable parallel safe as $$ select (p_time at time zone 'UTC')::date $$;

-- How long before a send its receipts and opens may have occurred: the contract refuses
-- telemetry more than 30 days older than its arrival and sends more than 1 day ahead of theirs
-- (IngestLimits.maxAge, maxFuture), so none is older than 31 days before its send; one day
-- more of margin. The engine and the landing rollups read confirmations from this long before
-- their window (OutcomeLookBackTests ties it to IngestLimits).
-- Reads nothing; writes nothing.
create or replace function pushledger_confirmation_lookback()
returns interval
language sql immutable parallel safe as $$ select interval '32 days' $$;
