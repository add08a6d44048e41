-- Loading a table whole: its indexes dropped before and built once after, from their own
-- definitions, which costs less than keeping them up to date row by row. The rebuild loads
-- send_outcomes (sql/engine/rollups.sql) and open_landing_notifications
-- (sql/engine/landings.sql) this way.

-- Drops every index of p_table (primary and unique keys first: they own their indexes) and
-- returns the statements that build them again, for pushledger_build_indexes. The caller holds
-- the table's exclusive lock (truncate), so nobody reads it without them. The statements are
-- the catalog's own definitions (pg_get_constraintdef, pg_get_indexdef), names quoted by
-- format's %I: DDL has no parameters, so this is the one place the engine runs SQL text.
-- Reads pg_constraint, pg_index; writes p_table's indexes (drops them).
create or replace function pushledger_drop_indexes(p_table regclass)
returns text[]
language plpgsql as $$
declare
    v_build text[] := '{}';
    v_index record;
begin
    for v_index in
        select format('alter table %s add constraint %I %s', p_table, c.conname, pg_get_constraintdef(c.oid)) as build,
               format('alter table %s drop constraint %I', p_table, c.conname) as drop
          from pg_constraint c where c.conrelid = p_table and c.contype in ('p', 'u')
        union all
        select pg_get_indexdef(i.indexrelid), format('drop index %s', i.indexrelid::regclass)
          from pg_index i
         where i.indrelid = p_table and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
    loop
        v_build := v_build || v_index.build;
        execute v_index.drop;
    end loop;
    return v_build;
end
$$;

-- Builds the indexes pushledger_drop_indexes dropped.
-- Reads nothing; writes the indexes the statements name.
create or replace function pushledger_build_indexes(p_build text[])
returns void
language plpgsql as $$
declare
    v_statement text;
begin
    foreach v_statement in array p_build loop
        execute v_statement;
    end loop;
end
$$;
