-- Writer tuning found by the benchmark (Tests/StoreTests/WriterBenchmark.swift).
-- (0001-0006 are applied on shared databases; changes come as new migrations.)

-- The instrumentation lookup reads a window of receipts through the primary key
-- (app_id, occurred_at, event_id); one index less to maintain on every receipt.
drop index notification_receipts_slice;

-- apply_staged, now analysing the staging tables first.
create or replace function pushledger_apply_staged()
returns table (unit integer, accepted bigint)
language plpgsql as $$
#variable_conflict use_column
begin
    -- Temp tables get no autovacuum: without statistics the planner guesses a handful of rows
    -- and picks nested loops over whole indexes. Sampling a batch costs milliseconds.
    analyze stage_telemetry;
    analyze stage_sends;
    perform pushledger_ensure_partitions(min(t), max(t))
       from (select occurred_at as t from stage_telemetry
             union all select sent_at from stage_sends) times;

    -- De-duplication: the first copy by seq within the batch, and only if no earlier batch
    -- stored the key. Keys go in sorted order so concurrent writers cannot deadlock here.
    with firsts as (
        select distinct on (app_id, event_id) app_id, event_id, seq, unit, received_at
          from (select app_id, event_id, seq, unit, received_at from stage_telemetry
                union all
                select app_id, event_id, seq, unit, received_at from stage_sends) staged
         order by app_id, event_id, seq
    ), stored as (
        insert into event_ids (app_id, event_id, received_at)
        select app_id, event_id, received_at from firsts order by app_id, event_id
        on conflict do nothing
        returning app_id, event_id
    )
    insert into stage_fresh (seq, unit)
    select firsts.seq, firsts.unit from firsts join stored using (app_id, event_id);

    perform pushledger_store_staged_telemetry();
    perform pushledger_store_staged_sends();

    return query select f.unit, count(*) from stage_fresh f group by f.unit;
end
$$;
