-- The rows a pass's second connection classified (docs/rollups.md "Two connections"), from that
-- connection's commit until the pass copies them into its working table rollup_new and empties
-- this table, in the pass's transaction. One pass at a time writes it (the refresh's lock).
-- Unlogged: written without WAL, and a crash can lose only rows of a pass that did not commit
-- and runs again. The same columns as send_outcomes, in order (RollupFlowTests checks it).
create unlogged table rollup_second_rows (like send_outcomes);
