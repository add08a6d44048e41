-- The outcome counters (metrics.md "Outcome of one send attempt", "Rates"): the thirteen counts
-- every outcome report and every send_rollups_daily row carries, the one list in SQL. Swift's
-- PushLedgerRules.OutcomeCounter lists the same names in the same order (OutcomeCounterTests
-- holds the two lists, and the count columns of the rollups and report functions, equal).

-- The counters in report order.
-- Reads nothing; writes nothing.
create or replace function pushledger_outcome_counters()
returns table (ordinal integer, counter text)
language sql immutable parallel safe as $$
values (1, 'sends'), (2, 'accepted'), (3, 'rejected'), (4, 'pending'), (5, 'opened'), (6, 'received'),
       (7, 'blocked_app'), (8, 'blocked_channel'), (9, 'unconfirmed'), (10, 'unattributed'),
       (11, 'unconfirmable'), (12, 'token_invalid'), (13, 'to_invalid_token')
$$;

-- Whether a send counts in counter p_counter, from its outcome and token flags: what each
-- counter means, the one place it is written; null for a name that is no counter. Called with a
-- constant counter name, so the planner inlines it and folds the CASE to the one test that
-- counter makes (no cost over writing the test out).
-- Reads nothing; writes nothing.
create or replace function pushledger_counts_in(
    p_counter text, p_outcome text, p_token_invalid boolean, p_to_invalid_token boolean)
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
end
$$;
