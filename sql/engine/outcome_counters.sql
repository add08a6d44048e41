-- The counter catalog (metrics.md "Outcome of one send attempt", "Why a send is unconfirmed",
-- "Delivery latency", "Rates"): every count a daily rollup row carries and the report functions
-- return, the slice columns a rollup row is keyed by, and the rule that says which sends each
-- counter counts. The one list in SQL: the delta application (sql/engine/send_rollups.sql), the
-- rate functions and views (sql/views/rates.sql) and the report functions (sql/reports) are
-- built from it by pushledger_define. Swift mirrors it once (PushLedgerRules.RollupCatalog,
-- with OutcomeCounter in report order); RollupCatalogTests holds the two, the rollup table's
-- columns and the report functions' columns equal. Adding a counter: a row here, its case in
-- pushledger_counts_in, its column on send_rollups_daily (a migration) and in Swift's mirror;
-- the files built from the catalog are applied again by `pushledger migrate` (they say
-- "-- Built from engine/outcome_counters.sql").

drop function if exists pushledger_counts_in(text, text, boolean, boolean);
-- The rates view (sql/views/rates.sql, built from this file) reads the rates: made again after.
drop view if exists send_rollup_rates_daily;
drop function if exists pushledger_rates(bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint);
drop function if exists pushledger_rate_columns(bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint,
                                                bigint);

-- The catalog in column order. family: slice (a key column of a rollup row, with its type),
-- outcome (the thirteen outcome counters, in report order), cause (of unconfirmed sends),
-- latency (buckets of received and opened sends), and the counts a rollup row keeps so a wider
-- report window judges instrumentation again (metrics.md rule 8): uninstrumented (unattributed
-- only for want of a receipt from the slice that day), cause_uninstrumented (their causes),
-- background (background pushes unconfirmable only for want of a background receipt that day),
-- cause_background (their causes). groups: rate_input (the counts pushledger_rates reads), late
-- (the buckets an hour or more late).
-- Reads nothing; writes nothing.
create or replace function pushledger_rollup_catalog()
returns table (ordinal integer, name text, family text, sql_type text, groups text[])
language sql immutable parallel safe as $$
values (1, 'platform', 'slice', 'text', '{}'::text[]), (2, 'channel', 'slice', 'text', '{}'),
       (3, 'app_version', 'slice', 'text', '{}'), (4, 'campaign', 'slice', 'text', '{}'),
       (5, 'provider', 'slice', 'text', '{}'), (6, 'os_version', 'slice', 'text', '{}'),
       (7, 'sdk_int', 'slice', 'integer', '{}'), (8, 'standby_bucket', 'slice', 'text', '{}'),
       (9, 'background_restricted', 'slice', 'boolean', '{}'),
       (10, 'ignoring_battery_optimizations', 'slice', 'boolean', '{}'),
       (11, 'low_power_mode', 'slice', 'boolean', '{}'), (12, 'push_type', 'slice', 'text', '{}'),
       (13, 'message_kind', 'slice', 'text', '{}'), (14, 'browser', 'slice', 'text', '{}'),
       (15, 'push_service', 'slice', 'text', '{}'),
       (21, 'sends', 'outcome', 'bigint', '{rate_input}'), (22, 'accepted', 'outcome', 'bigint', '{rate_input}'),
       (23, 'rejected', 'outcome', 'bigint', '{rate_input}'), (24, 'pending', 'outcome', 'bigint', '{}'),
       (25, 'opened', 'outcome', 'bigint', '{rate_input}'), (26, 'received', 'outcome', 'bigint', '{rate_input}'),
       (27, 'blocked_app', 'outcome', 'bigint', '{rate_input}'),
       (28, 'blocked_channel', 'outcome', 'bigint', '{rate_input}'),
       (29, 'unconfirmed', 'outcome', 'bigint', '{rate_input}'), (30, 'unattributed', 'outcome', 'bigint', '{}'),
       (31, 'unconfirmable', 'outcome', 'bigint', '{rate_input}'),
       (32, 'token_invalid', 'outcome', 'bigint', '{rate_input}'),
       (33, 'to_invalid_token', 'outcome', 'bigint', '{}'),
       (41, 'superseded', 'cause', 'bigint', '{}'), (42, 'app_stopped', 'cause', 'bigint', '{}'),
       (43, 'expired', 'cause', 'bigint', '{}'), (44, 'device_inactive', 'cause', 'bigint', '{}'),
       (45, 'unexplained', 'cause', 'bigint', '{}'),
       (51, 'latency_lt_10s', 'latency', 'bigint', '{}'), (52, 'latency_lt_1m', 'latency', 'bigint', '{}'),
       (53, 'latency_lt_10m', 'latency', 'bigint', '{}'), (54, 'latency_lt_1h', 'latency', 'bigint', '{}'),
       (55, 'latency_lt_6h', 'latency', 'bigint', '{late}'), (56, 'latency_lt_24h', 'latency', 'bigint', '{late}'),
       (57, 'latency_ge_24h', 'latency', 'bigint', '{late}'),
       (61, 'unattributed_uninstrumented', 'uninstrumented', 'bigint', '{}'),
       (62, 'superseded_uninstrumented', 'cause_uninstrumented', 'bigint', '{}'),
       (63, 'app_stopped_uninstrumented', 'cause_uninstrumented', 'bigint', '{}'),
       (64, 'expired_uninstrumented', 'cause_uninstrumented', 'bigint', '{}'),
       (65, 'device_inactive_uninstrumented', 'cause_uninstrumented', 'bigint', '{}'),
       (66, 'unexplained_uninstrumented', 'cause_uninstrumented', 'bigint', '{}'),
       (71, 'unconfirmable_uninstrumented', 'background', 'bigint', '{}'),
       (72, 'unconfirmable_unattributed', 'background', 'bigint', '{}'),
       (73, 'superseded_background', 'cause_background', 'bigint', '{}'),
       (74, 'app_stopped_background', 'cause_background', 'bigint', '{}'),
       (75, 'expired_background', 'cause_background', 'bigint', '{}'),
       (76, 'device_inactive_background', 'cause_background', 'bigint', '{}'),
       (77, 'unexplained_background', 'cause_background', 'bigint', '{}')
$$;

-- The outcome counters in report order: the thirteen counts every outcome report carries.
-- Reads nothing; writes nothing.
create or replace function pushledger_outcome_counters()
returns table (ordinal integer, counter text)
language sql immutable parallel safe as $$
select row_number() over (order by c.ordinal)::integer, c.name
  from pushledger_rollup_catalog() c where c.family = 'outcome'
$$;

-- Whether a send counts in counter p_counter: what each counter means, the one place it is
-- written; null for a name that is no counter. From the send's outcome and token flags, its
-- cause and latency bucket, p_background (unconfirmable only for want of a background receipt
-- from its slice that day: pushledger_unconfirmable_for_background), p_attributed (an as-of
-- state and a resolved installation) and p_instrumented (its slice reported a receipt that
-- day). Called with a constant counter name, so the planner inlines it and folds the CASE to
-- the one test that counter makes (no cost over writing the test out).
-- Reads nothing; writes nothing.
create or replace function pushledger_counts_in(
    p_counter text, p_outcome text, p_token_invalid boolean, p_to_invalid_token boolean,
    p_cause text default null, p_latency_bucket text default null, p_background boolean default false,
    p_attributed boolean default null, p_instrumented boolean default null)
returns boolean
language sql immutable parallel safe as $$
select case p_counter
    when 'sends' then true
    -- Accepted: a 2xx the provider took that is past its confirmation window.
    when 'accepted' then p_outcome not in ('rejected', 'pending')
    when 'rejected' then p_outcome = 'rejected'
    when 'pending' then p_outcome = 'pending'
    when 'opened' then p_outcome = 'opened'
    when 'received' then p_outcome = 'received'
    when 'blocked_app' then p_outcome = 'blocked_app'
    when 'blocked_channel' then p_outcome = 'blocked_channel'
    when 'unconfirmed' then p_outcome = 'unconfirmed'
    when 'unattributed' then p_outcome = 'unattributed'
    when 'unconfirmable' then p_outcome = 'unconfirmable'
    when 'token_invalid' then p_token_invalid
    when 'to_invalid_token' then p_to_invalid_token
    when 'superseded' then p_outcome = 'unconfirmed' and p_cause = 'superseded'
    when 'app_stopped' then p_outcome = 'unconfirmed' and p_cause = 'app_stopped'
    when 'expired' then p_outcome = 'unconfirmed' and p_cause = 'expired'
    when 'device_inactive' then p_outcome = 'unconfirmed' and p_cause = 'device_inactive'
    when 'unexplained' then p_outcome = 'unconfirmed' and p_cause = 'unexplained'
    when 'latency_lt_10s' then p_latency_bucket = 'lt_10s'
    when 'latency_lt_1m' then p_latency_bucket = 'lt_1m'
    when 'latency_lt_10m' then p_latency_bucket = 'lt_10m'
    when 'latency_lt_1h' then p_latency_bucket = 'lt_1h'
    when 'latency_lt_6h' then p_latency_bucket = 'lt_6h'
    when 'latency_lt_24h' then p_latency_bucket = 'lt_24h'
    when 'latency_ge_24h' then p_latency_bucket = 'ge_24h'
    -- Rule 8's other causes (no as-of snapshot, unresolved installation) hold in any window.
    when 'unattributed_uninstrumented' then p_outcome = 'unattributed' and p_attributed and not p_instrumented
    when 'superseded_uninstrumented' then p_outcome = 'unattributed' and p_cause = 'superseded'
    when 'app_stopped_uninstrumented' then p_outcome = 'unattributed' and p_cause = 'app_stopped'
    when 'expired_uninstrumented' then p_outcome = 'unattributed' and p_cause = 'expired'
    when 'device_inactive_uninstrumented' then p_outcome = 'unattributed' and p_cause = 'device_inactive'
    when 'unexplained_uninstrumented' then p_outcome = 'unattributed' and p_cause = 'unexplained'
    -- A wider window with a background receipt judges these unconfirmed (a known state, with
    -- their causes) or unattributed.
    when 'unconfirmable_uninstrumented' then p_background and p_attributed
    when 'unconfirmable_unattributed' then p_background and not p_attributed
    when 'superseded_background' then p_background and p_cause = 'superseded'
    when 'app_stopped_background' then p_background and p_cause = 'app_stopped'
    when 'expired_background' then p_background and p_cause = 'expired'
    when 'device_inactive_background' then p_background and p_cause = 'device_inactive'
    when 'unexplained_background' then p_background and p_cause = 'unexplained'
end
$$;

-- How far a wider report window moves counter p_counter of a rollup row (metrics.md rule 8,
-- "Which sends can confirm"): p_reclassified sends unattributed only for want of a receipt from
-- their slice that day are unconfirmed over the window; p_background_unconfirmed and
-- p_background_unattributed background pushes unconfirmable only for want of a background
-- receipt that day are unconfirmed (with a known state) or unattributed. 0 for the others.
-- Reads nothing; writes nothing.
create or replace function pushledger_widened(
    p_counter text, p_reclassified bigint, p_background_unconfirmed bigint, p_background_unattributed bigint)
returns bigint
language sql immutable parallel safe as $$
select case p_counter
    when 'unconfirmed' then p_reclassified + p_background_unconfirmed
    when 'unattributed' then p_background_unattributed - p_reclassified
    when 'unconfirmable' then -p_background_unconfirmed - p_background_unattributed
    else 0
end
$$;

-- The rates of one set of counts (metrics.md "Rates"), one row a rate in report order:
-- numerator, denominator, value (null when the denominator is 0) and low_volume (a denominator
-- under 30, metrics.md "Low volume"). Sends that cannot confirm (unconfirmable) leave the
-- denominators of the rates that need a confirmation: silent loss, unconfirmed, confirmed
-- delivery. The one place the counters are combined; sql/views/rates.sql reads it.
-- Reads nothing; writes nothing.
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
-- Reads nothing; writes nothing.
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

-- p_sql with each list of the catalog written out: `[[families | item]]` becomes item once for
-- every catalog entry of those families or groups (comma-separated names), in catalog order, joined by
-- ", "; `[[families | item | separator]]` joins by the separator (e.g. `or`, `+`). In item,
-- {c} is the entry's name and {t} its SQL type. A family with no entry is an error (a typo
-- would otherwise build a shorter list).
-- Reads nothing; writes nothing.
create or replace function pushledger_expand_catalog(p_sql text)
returns text
language plpgsql immutable as $$
declare
    v_out text := '';
    v_rest text := p_sql;
    v_at integer;
    v_len integer;
    v_parts text[];
    v_terms text[];
    v_separator text;
    v_list text;
begin
    loop
        v_at := strpos(v_rest, '[[');
        exit when v_at = 0;
        v_len := strpos(substr(v_rest, v_at), ']]');
        if v_len = 0 then
            raise exception 'a catalog list opened with [[ is not closed: %', left(substr(v_rest, v_at), 60);
        end if;
        v_parts := string_to_array(substr(v_rest, v_at + 2, v_len - 3), ' | ');
        v_terms := string_to_array(regexp_replace(v_parts[1], '\s', '', 'g'), ',');
        if exists (select from unnest(v_terms) t
                    where not exists (select from pushledger_rollup_catalog() c
                                       where c.family = t or t = any(c.groups))) then
            raise exception 'not a catalog family or group in [[%]]', v_parts[1];
        end if;
        v_separator := case when coalesce(trim(v_parts[3]), ',') = ',' then ', '
                            else ' ' || trim(v_parts[3]) || ' ' end;
        select string_agg(replace(replace(trim(v_parts[2]), '{c}', c.name), '{t}', c.sql_type), v_separator
                          order by c.ordinal)
          into v_list
          from pushledger_rollup_catalog() c
         where c.family = any(v_terms) or c.groups && v_terms;
        if v_list is null or array_length(v_parts, 1) not between 2 and 3 then
            raise exception 'not a catalog list: [[%]]', substr(v_rest, v_at + 2, v_len - 3);
        end if;
        v_out := v_out || left(v_rest, v_at - 1) || v_list;
        v_rest := substr(v_rest, v_at + v_len + 1);
    end loop;
    return v_out || v_rest;
end
$$;

-- Runs p_sql (a definition: create function, create view …) with the catalog's lists written
-- out (pushledger_expand_catalog): how the files built from the catalog define their objects.
-- Reads nothing; writes the objects p_sql defines.
create or replace function pushledger_define(p_sql text)
returns void
language plpgsql as $$
begin
    execute pushledger_expand_catalog(p_sql);
end
$$;

-- A rollup row as the report functions return it (sql/reports): the day, the slice columns
-- and the outcome, cause and latency counts. Dropped with the functions returning it when the
-- catalog changes; they are built from the catalog, so `pushledger migrate` defines them again.
drop type if exists pushledger_rollup_row cascade;
select pushledger_define($sql$
create type pushledger_rollup_row as (day date, [[slice | {c} {t}]], [[outcome, cause, latency | {c} {t}]])
$sql$);
