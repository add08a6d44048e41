-- send_rollups_daily_pending (app_id, day) where pending > 0 is read by no query: the reports
-- read the rollups by app and days through the slice key, whose first columns are the same.
-- Every refresh that moves a day's pending count kept it up to date for nothing.
drop index if exists send_rollups_daily_pending;
