#!/bin/sh
# Patroni's post_bootstrap: runs once on the first primary with a superuser connection URL.
# Creates the login role and database PushLedger migrates (`pushledger migrate`), and the
# read-only role the migrations grant to, so the pushledger role needs no CREATEROLE.
set -eu
psql "$1" -v ON_ERROR_STOP=1 -q <<'SQL'
create role pushledger login;
create role pushledger_reader nologin;
create database pushledger owner pushledger;
SQL
