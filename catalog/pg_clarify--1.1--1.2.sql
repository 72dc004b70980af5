\echo Use "ALTER EXTENSION pg_clarify UPDATE TO '1.2'" to load this file. \quit

-- pg_clarify 1.1 -> 1.2. Every change here is also in pg_clarify--1.2.sql, so that an updated
-- database and a fresh 1.2 install have the same schema (test/shell/upgrade.t compares them).
-- Blocks appear in the same order in both scripts, each under the same heading.
