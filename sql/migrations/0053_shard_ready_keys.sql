-- Every primary key and unique index of an app-scoped table includes app_id, the column the
-- schema is distributed by on Citus (a distributed table's unique constraints must contain its
-- distribution column). alert_transitions was the one exception: its serial id alone.
-- The id stays unique on its own (one sequence); the key only adds app_id in front.
alter table alert_transitions drop constraint alert_transitions_pkey;
alter table alert_transitions add primary key (app_id, id);
