-- App identities the domains' association files must name, and the stored results of
-- `pushledger links check` (apple-app-site-association / assetlinks.json checks).

-- iOS app IDs (TEAMID.bundle.id); position keeps the order given (the first is the one tapped
-- paths are judged for).
create table app_ios_identities (
    app_id     text        not null,
    ios_app_id text        not null,
    position   integer     not null,
    updated_at timestamptz not null default now(),
    primary key (app_id, ios_app_id)
);

-- Android packages with their signing-certificate SHA-256 fingerprints (canonical AA:BB:… form).
create table app_android_identities (
    app_id       text        not null,
    package_name text        not null,
    cert_sha256  text        not null check (cert_sha256 ~ '^[0-9A-F]{2}(:[0-9A-F]{2}){31}$'),
    updated_at   timestamptz not null default now(),
    primary key (app_id, package_name, cert_sha256)
);

-- One row per check of one domain in one run; a run's rows share checked_at.
create table link_check_results (
    id         bigint generated always as identity,
    app_id     text        not null,
    checked_at timestamptz not null,
    domain     text        not null,
    check_name text        not null,
    subject    text        not null default '',
    verdict    text        not null,
    passed     boolean     not null,
    detail     text        not null,
    primary key (app_id, id)  -- app_id first: the schema's distribution column
);
create index link_check_results_latest on link_check_results (app_id, domain, checked_at desc);

grant select on app_ios_identities, app_android_identities, link_check_results to pushledger_reader;
