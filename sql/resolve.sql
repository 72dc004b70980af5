-- clarify.resolve(term, question_id): the gate for one term, without a statement
-- (docs/reference.md, "Functions"). Three approved revenue meanings and no default: AMBIGUOUS with
-- the three options.
SELECT jsonb_pretty(clarify.resolve('revenue'));
-- Terms are case-insensitive and trimmed.
SELECT clarify.resolve('Revenue')->>'decision' AS mixed_case, clarify.resolve('  REVENUE ')->>'decision' AS padded;
-- Only a draft margin metric: UNSUPPORTED.
SELECT r->>'decision' AS decision, r->>'reason' AS reason, r->'options' AS options FROM clarify.resolve('margin') r;
-- A single approved meaning: RESOLVED as the only eligible one.
SELECT r->>'decision' AS decision, r->>'selected' AS selected, r->>'source' AS source FROM clarify.resolve('country') r;
-- An unknown term: UNSUPPORTED.
SELECT r->>'decision' AS decision, r->>'reason' AS reason FROM clarify.resolve('profit') r;

-- A default for everyone names recognized revenue: RESOLVED, default applied.
INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('revenue', 'metric.recognized_revenue', 'Finance controller');
SELECT r->>'decision' AS decision, r->>'selected' AS selected, r->>'source' AS source, r->'default_applied' AS default_applied, r->>'default' AS "default" FROM clarify.resolve('revenue') r;

-- A role-specific default beats the one for everyone, for members of that role only.
INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by) VALUES ('revenue', 'metric.booked_revenue', 'regress_finance_team', 'Sales operations');
SET ROLE regress_finance_agent;
SELECT r->>'selected' AS finance_team_gets FROM clarify.resolve('revenue') r;
SET ROLE regress_agent;
SELECT r->>'selected' AS others_get FROM clarify.resolve('revenue') r;
RESET ROLE;
-- Superuser status alone does not make anyone a member of the role.
SELECT r->>'selected' AS superuser_gets FROM clarify.resolve('revenue') r;
DELETE FROM clarify.defaults WHERE applies_to IS NOT NULL;

-- The default's concept becomes unavailable while two others are eligible: UNSUPPORTED naming
-- the dead default, never AMBIGUOUS, never another candidate.
UPDATE clarify.concepts SET available = false WHERE id = 'metric.recognized_revenue';
SELECT r->>'decision' AS decision, r->>'selected' AS selected, r->>'default' AS "default", r->'default_applied' AS default_applied, r->>'reason' AS reason, jsonb_array_length(r->'options') AS eligible_options FROM clarify.resolve('revenue') r;
-- ... and while only one other is eligible: still UNSUPPORTED, not that one.
UPDATE clarify.concepts SET status = 'deprecated' WHERE id = 'metric.invoiced_revenue';
SELECT r->>'decision' AS decision, r->>'selected' AS selected, r->>'default' AS "default", r->'default_applied' AS default_applied, jsonb_array_length(r->'options') AS eligible_options FROM clarify.resolve('revenue') r;
UPDATE clarify.concepts SET available = true WHERE id = 'metric.recognized_revenue';
UPDATE clarify.concepts SET status = 'approved' WHERE id = 'metric.invoiced_revenue';
-- A validity window that has ended makes the concept ineligible too.
UPDATE clarify.concepts SET valid_until = now() - interval '1 day', valid_from = now() - interval '1 year' WHERE id = 'metric.recognized_revenue';
SELECT r->>'decision' AS decision, r->>'reason' AS reason FROM clarify.resolve('revenue') r;
UPDATE clarify.concepts SET valid_until = NULL, valid_from = NULL WHERE id = 'metric.recognized_revenue';
DELETE FROM clarify.defaults;

-- A user's confirmation for the question, recorded by the chat app: RESOLVED by confirmation.
SET ROLE regress_app;
SELECT clarify.confirm('q_resolve', 'Revenue', 'metric.invoiced_revenue', 'regress_agent', 'user:alice') > 0 AS confirmed;
SET ROLE regress_agent;
SELECT r->>'decision' AS decision, r->>'selected' AS selected, r->>'source' AS source, (r->>'approval_id') IS NOT NULL AS has_approval FROM clarify.resolve('revenue', 'q_resolve') r;
-- Another question is not confirmed.
SELECT r->>'decision' AS decision FROM clarify.resolve('revenue', 'q_other') r;
RESET ROLE;
-- Revoked, it no longer counts.
SELECT id AS approval_id FROM clarify.approvals WHERE question_id = 'q_resolve' \gset
SET ROLE regress_app;
SELECT clarify.revoke(:approval_id);
RESET ROLE;
SELECT id IS NOT NULL AS revoked_row_kept, revoked_at IS NOT NULL AS revoked FROM clarify.approvals WHERE question_id = 'q_resolve';
SET ROLE regress_agent;
SELECT r->>'decision' AS decision FROM clarify.resolve('revenue', 'q_resolve') r;
RESET ROLE;
