\echo Use "ALTER EXTENSION pg_clarify UPDATE TO '1.1'" to load this file. \quit

-- pg_clarify 1.0 -> 1.1. Every change here is also in pg_clarify--1.1.sql, so that an updated
-- database and a fresh 1.1 install have the same schema (test/shell/upgrade.t compares them).
