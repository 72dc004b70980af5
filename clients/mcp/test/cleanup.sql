-- Removes what test/fixture.sql created (the roles stay: other databases may use them).
SET client_min_messages = warning;
DELETE FROM clarify.defaults WHERE concept_id LIKE 'regress\_mcp.%';
DELETE FROM clarify.approvals WHERE concept_id LIKE 'regress\_mcp.%';
DELETE FROM clarify.concepts WHERE id LIKE 'regress\_mcp.%';
DELETE FROM clarify.agent_roles WHERE agent_role::text = 'regress_mcp_agent';
DROP SCHEMA IF EXISTS regress_mcp_sales CASCADE;
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'regress_mcp_app') THEN
        REVOKE EXECUTE ON FUNCTION clarify.confirm, clarify.revoke FROM regress_mcp_app;
    END IF;
END
$$;
