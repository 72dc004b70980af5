\echo Use "ALTER EXTENSION pg_clarify UPDATE TO '1.1'" to load this file. \quit

-- pg_clarify 1.0 -> 1.1. Every change here is also in pg_clarify--1.1.sql, so that an updated
-- database and a fresh 1.1 install have the same schema (test/shell/upgrade.t compares them).

--------------------------------------------------------------------------------------------------
-- Audit queue: async decisions wait for room like sync ones and are never
-- dropped; only notes on refused decisions can be.
COMMENT ON FUNCTION clarify.audit_queue() IS
    'The audit queue of each database since the server started: decisions queued, written, notes dropped (a refused decision''s note that found the queue full; decisions are never dropped), decisions timed out (refused with QC005: not committed, or no room in the queue, within pg_clarify.audit_timeout), failed batches and the last error.';
