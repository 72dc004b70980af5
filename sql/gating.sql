-- Who is gated (docs/dba-guide.md, "Let agents in"): the session user or the outer role is a member
-- of a governed role.
SELECT clarify.gated() AS superuser_gated;
SET ROLE regress_agent;
SELECT clarify.gated() AS agent_gated;
SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders') AS agent_reads_booked;
SET ROLE regress_finance_agent;
SELECT clarify.gated() AS member_of_governed_group_gated;
SET ROLE regress_analyst;
SELECT clarify.gated() AS analyst_gated;
SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders') AS analyst_reads_booked;
RESET ROLE;
-- The superuser is not gated: superuser status never makes anyone a member.
SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders') AS superuser_reads_booked;

-- An agent's session cannot escape by SET ROLE to a role that is not governed.
GRANT regress_analyst TO regress_agent;
SET SESSION AUTHORIZATION regress_agent;
SET ROLE regress_analyst;
SELECT current_user, clarify.gated() AS still_gated;
SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders') AS after_set_role;
RESET ROLE;
RESET SESSION AUTHORIZATION;
REVOKE regress_analyst FROM regress_agent;

-- SECURITY DEFINER functions owned by the superuser stay gated when an agent calls them.
CREATE FUNCTION public.definer_booked() RETURNS numeric LANGUAGE sql SECURITY DEFINER
  AS 'SELECT sum(booked_amount) FROM sales.orders';
CREATE FUNCTION public.definer_booked_plpgsql() RETURNS numeric LANGUAGE plpgsql SECURITY DEFINER
  AS $$ BEGIN RETURN (SELECT sum(booked_amount) FROM sales.orders); END $$;
SET ROLE regress_agent;
SELECT public.gate_state('SELECT public.definer_booked()') AS security_definer_sql;
SELECT public.gate_state('SELECT public.definer_booked_plpgsql()') AS security_definer_plpgsql;
RESET ROLE;

-- The emergency switch is the superuser's; releasing a role ungates it.
SET pg_clarify.enabled = off;
SET ROLE regress_agent;
SELECT public.gate_state('SELECT sum(booked_amount) FROM sales.orders') AS gate_switched_off;
RESET ROLE;
RESET pg_clarify.enabled;
SELECT clarify.release_role('regress_agent');
SET ROLE regress_agent;
SELECT clarify.gated() AS released_agent_gated;
RESET ROLE;
SELECT clarify.govern_role('regress_agent');
SET ROLE regress_agent;
SELECT clarify.gated() AS governed_again;
-- Agents cannot change the catalog, their own governance, or confirm their own bindings.
\set VERBOSITY terse
INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES ('revenue', 'metric.booked_revenue', 'me');
DELETE FROM clarify.agent_roles;
SELECT clarify.release_role('regress_agent');
SELECT clarify.confirm('q', 'revenue', 'metric.booked_revenue', 'regress_agent', 'me');
\set VERBOSITY default
RESET ROLE;
-- Even when granted EXECUTE, a gated caller cannot confirm.
GRANT EXECUTE ON FUNCTION clarify.confirm(text, text, text, regrole, text, interval, text) TO regress_agent;
SET ROLE regress_agent;
\set VERBOSITY terse
SELECT clarify.confirm('q', 'revenue', 'metric.booked_revenue', 'regress_agent', 'me');
\set VERBOSITY default
RESET ROLE;
REVOKE EXECUTE ON FUNCTION clarify.confirm(text, text, text, regrole, text, interval, text) FROM regress_agent;
-- govern_role warns, without refusing, when the role can create code that others would run with
-- its identity: here TEMP, which PUBLIC has in a stock database. Not once that is revoked.
CREATE ROLE regress_coder;
SELECT current_database() AS db \gset
SELECT clarify.govern_role('regress_coder');
REVOKE TEMP ON DATABASE :"db" FROM PUBLIC;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SELECT clarify.govern_role('regress_coder');
GRANT TEMP ON DATABASE :"db" TO PUBLIC;
GRANT CREATE ON SCHEMA public TO regress_coder;
SELECT clarify.govern_role('regress_coder');
REVOKE CREATE ON SCHEMA public FROM regress_coder;
SELECT clarify.release_role('regress_coder');
DROP ROLE regress_coder;
