-- clarify.audit_metrics(), clarify.default_candidates and the evaluation views' counting
-- (docs/dba-guide.md, "Production metrics"), on an audit history planted on 2001-01-01 in a
-- transaction that is rolled back (session_replication_role = replica lets the superuser write
-- the audit's storage directly; nothing else in the database is dated then).
BEGIN;
SET LOCAL session_replication_role = replica;
SET LOCAL TimeZone = 'UTC';
-- A period's term: the window a time-range slot offers.
INSERT INTO clarify.terms (term, concept_id) VALUES ('last quarter', 'window.last_quarter');
CREATE TEMP TABLE planted_shapes (name text, hash uuid, allowed boolean, state text, payload jsonb);
INSERT INTO planted_shapes VALUES
  ('ambiguous', gen_random_uuid(), false, 'AMBIGUOUS',
   '{"slots": [{"kind": "metric", "term": "turnover", "state": "AMBIGUOUS", "question": "Which turnover?"}]}'),
  ('period', gen_random_uuid(), false, 'AMBIGUOUS',
   '{"slots": [{"kind": "time_range", "term": null, "state": "AMBIGUOUS", "measure": "metric.booked_revenue",
                "question": "For which period?", "options": [{"value": "window.last_quarter"}]}]}'),
  ('unverified', gen_random_uuid(), false, 'UNVERIFIED',
   '{"slots": [{"kind": "metric", "term": "turnover", "state": "UNVERIFIED", "question": null}]}'),
  ('allowed', gen_random_uuid(), true, 'RESOLVED', '{"slots": []}');
INSERT INTO clarify.audit_shapes (hash, allowed, state, reason, columns, bindings, payload)
SELECT hash, allowed, state, name, '[]',
       CASE WHEN allowed THEN '[{"source": "approved_default"}]' ELSE '[]' END::jsonb, payload
  FROM planted_shapes;
INSERT INTO clarify.audit_texts VALUES ('00000000-0000-0000-0000-00000000a001', 'SELECT planted');
-- q1: two rounds, then allowed within the hour. q2: one round (a period), allowed two hours
-- later (resolved, but abandoned). q3: one round, never allowed. q4: allowed, then an
-- UNVERIFIED rejection (not a round). q5: UNVERIFIED then allowed (no round). q6: allowed.
CREATE TEMP TABLE planted (id bigint, at timestamptz, question text, shape text);
INSERT INTO planted VALUES
  (9000000001, '2001-01-01 10:00', 'planted_q1', 'ambiguous'),
  (9000000002, '2001-01-01 10:05', 'planted_q1', 'ambiguous'),
  (9000000003, '2001-01-01 10:10', 'planted_q1', 'allowed'),
  (9000000004, '2001-01-01 10:00', 'planted_q2', 'period'),
  (9000000005, '2001-01-01 12:00', 'planted_q2', 'allowed'),
  (9000000006, '2001-01-01 10:00', 'planted_q3', 'ambiguous'),
  (9000000007, '2001-01-01 10:00', 'planted_q4', 'allowed'),
  (9000000008, '2001-01-01 10:30', 'planted_q4', 'unverified'),
  (9000000009, '2001-01-01 10:00', 'planted_q5', 'unverified'),
  (9000000010, '2001-01-01 10:01', 'planted_q5', 'allowed'),
  (9000000011, '2001-01-01 10:00', 'planted_q6', 'allowed');
INSERT INTO clarify.audit_batches (first_decided_at, last_decided_at, decision_ids, decided_ats,
    session_roles, acting_roles, pids, query_ids, statement_hashes, shape_hashes, record_hashes,
    question_ids)
SELECT min(p.at), max(p.at), array_agg(p.id ORDER BY p.id), array_agg(p.at ORDER BY p.id),
       array_agg('regress_agent'::regrole::oid), array_agg('regress_agent'::regrole::oid),
       array_agg(0), array_agg(0::bigint),
       array_agg('00000000-0000-0000-0000-00000000a001'::uuid),
       array_agg(s.hash ORDER BY p.id), array_agg(NULL::uuid), array_agg(p.question ORDER BY p.id)
  FROM planted p JOIN planted_shapes s ON s.name = p.shape;
-- Confirmations: turnover 5 of 6 for one meaning (83 %: a default candidate), nation 4 of 4
-- (too few), profit 3 of 5 (60 %: users disagree).
INSERT INTO clarify.approvals (question_id, term, concept_id, granted_to, confirmed_by, created_at, expires_at, concept_version)
SELECT 'planted_c' || g, t.term, t.concept_id, 'regress_agent', 'user',
       '2001-01-01 11:00', '2001-01-01 12:00', 1
  FROM (VALUES ('turnover', 'metric.booked_revenue', 5), ('turnover', 'metric.invoiced_revenue', 1),
               ('nation', 'dim.customer_country', 4),
               ('profit', 'metric.gross_margin', 3), ('profit', 'metric.booked_revenue', 2)) t(term, concept_id, n)
  CROSS JOIN LATERAL generate_series(1, t.n) g;

-- Golden numbers: 6 questions, 3 with rounds (q1 2, q2 1, q3 1); q1 and q2 resolved; q2 and q3
-- not within pg_clarify.abandon_after (1 hour); 5 of 15 confirmations chose turnover's majority.
SELECT * FROM clarify.audit_metrics('2001-01-01', '2001-01-02');
-- abandon_after decides abandonment: with 3 hours only q3 is abandoned.
SET LOCAL pg_clarify.abandon_after = '3h';
SELECT metric, value, numerator, denominator FROM clarify.audit_metrics('2001-01-01', '2001-01-02')
 WHERE metric = 'abandonment_rate';
-- The range bounds the decisions: until 11:00 leaves out q2's allowed decision (12:00) and the confirmations (11:00).
SELECT metric, value, numerator, denominator FROM clarify.audit_metrics('2001-01-01', '2001-01-01 11:00')
 WHERE term IS NULL;
-- No decision in the range: no denominator, no value.
SELECT * FROM clarify.audit_metrics('1990-01-01', '1990-01-02');
SELECT * FROM clarify.default_candidates WHERE term IN ('turnover', 'nation', 'profit');
-- A default already made is no candidate.
INSERT INTO clarify.defaults (term, concept_id, approved_by, concept_version) VALUES ('turnover', 'metric.booked_revenue', 'dba', 1);
SELECT count(*) AS candidates FROM clarify.default_candidates WHERE term = 'turnover';

-- The views: time-range slots under their term, no negative duration, rounds only with a
-- question (AMBIGUOUS) slot.
SELECT term, ambiguous_rejections, questions FROM clarify.audit_friction
 WHERE term IN ('turnover', 'last quarter') ORDER BY term;
SELECT count(*) AS rows_without_a_term FROM clarify.audit_friction WHERE term IS NULL OR term = '';
SELECT question_id, first_rejected_at, first_allowed_at, rounds, time_to_resolution
  FROM clarify.audit_resolution_paths WHERE question_id LIKE 'planted_q%' ORDER BY 1;
SELECT count(*) AS negative_durations FROM clarify.audit_resolution_paths
 WHERE time_to_resolution < interval '0';
SELECT day, decision, state, decisions FROM clarify.audit_daily
 WHERE day >= '2001-01-01' AND day < '2001-01-02' ORDER BY 2, 3;
ROLLBACK;

-- pg_clarify.abandon_after is a superuser's.
SET ROLE regress_analyst;
SET pg_clarify.abandon_after = '5min';
RESET ROLE;
SHOW pg_clarify.abandon_after;
