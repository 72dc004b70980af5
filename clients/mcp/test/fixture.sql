-- The MCP server's test catalog: everything is named regress_mcp*, removed first and last.
SET client_min_messages = warning;
DELETE FROM clarify.defaults WHERE concept_id LIKE 'regress\_mcp.%';
DELETE FROM clarify.approvals WHERE concept_id LIKE 'regress\_mcp.%';
DELETE FROM clarify.concepts WHERE id LIKE 'regress\_mcp.%';
DELETE FROM clarify.agent_roles WHERE agent_role::text = 'regress_mcp_agent';
DROP SCHEMA IF EXISTS regress_mcp_sales CASCADE;
DO $$
DECLARE
    r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['regress_mcp_agent', 'regress_mcp_app'] LOOP
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('CREATE ROLE %I LOGIN', r);
        END IF;
    END LOOP;
END
$$;

CREATE SCHEMA regress_mcp_sales;
CREATE TABLE regress_mcp_sales.orders (
    id               integer PRIMARY KEY,
    customer_country text NOT NULL,
    ship_country     text NOT NULL,
    booked_amount    numeric(12, 2) NOT NULL
);
CREATE TABLE regress_mcp_sales.order_lines (
    id       integer PRIMARY KEY,
    order_id integer NOT NULL REFERENCES regress_mcp_sales.orders (id),
    quantity integer NOT NULL
);
CREATE TABLE regress_mcp_sales.costs (id integer PRIMARY KEY, margin numeric(12, 2) NOT NULL);
CREATE TABLE regress_mcp_sales.revenue_ledger (
    id                integer PRIMARY KEY,
    customer_country  text NOT NULL,
    recognized_amount numeric(12, 2) NOT NULL
);
INSERT INTO regress_mcp_sales.orders VALUES
    (1, 'Germany', 'Germany', 1200.00), (2, 'France', 'Belgium', 950.00);
INSERT INTO regress_mcp_sales.order_lines VALUES (1, 1, 2), (2, 1, 5), (3, 2, 1);
INSERT INTO regress_mcp_sales.costs VALUES (1, 120.00);
INSERT INTO regress_mcp_sales.revenue_ledger VALUES (1, 'Germany', 1350.00), (2, 'France', 800.00);
GRANT USAGE ON SCHEMA regress_mcp_sales TO regress_mcp_agent;
GRANT SELECT ON ALL TABLES IN SCHEMA regress_mcp_sales TO regress_mcp_agent;

INSERT INTO clarify.concepts (id, kind, label, description, owner, status, aliases) VALUES
    ('regress_mcp.booked_revenue', 'metric', 'Booked revenue', 'Value of accepted orders',
     'Sales', 'approved', '{}'),
    ('regress_mcp.recognized_revenue', 'metric', 'Recognized revenue',
     'Revenue recognized under the accounting standard', 'Finance', 'approved', '{}'),
    ('regress_mcp.gross_margin', 'metric', 'Gross margin', 'Revenue less cost of goods sold',
     'Finance', 'draft', '{}'),
    ('regress_mcp.customer_country', 'dimension', 'Customer country',
     'Country of the billing address', 'Sales', 'approved', '{}'),
    ('regress_mcp.shipping_country', 'dimension', 'Shipping country',
     'Country the goods were sent to', 'Logistics', 'approved', '{}');
INSERT INTO clarify.concept_columns (concept_id, relation, column_name) VALUES
    ('regress_mcp.booked_revenue', 'regress_mcp_sales.orders', 'booked_amount'),
    ('regress_mcp.recognized_revenue', 'regress_mcp_sales.revenue_ledger', 'recognized_amount'),
    ('regress_mcp.gross_margin', 'regress_mcp_sales.costs', 'margin'),
    ('regress_mcp.customer_country', 'regress_mcp_sales.orders', 'customer_country'),
    ('regress_mcp.customer_country', 'regress_mcp_sales.revenue_ledger', 'customer_country'),
    ('regress_mcp.shipping_country', 'regress_mcp_sales.orders', 'ship_country');
INSERT INTO clarify.terms (term, concept_id) VALUES
    ('mcp revenue', 'regress_mcp.booked_revenue'),
    ('mcp revenue', 'regress_mcp.recognized_revenue'),
    ('mcp country', 'regress_mcp.customer_country'),
    ('mcp country', 'regress_mcp.shipping_country'),
    ('mcp margin', 'regress_mcp.gross_margin');
INSERT INTO clarify.defaults (term, concept_id, applies_to, approved_by) VALUES
    ('mcp country', 'regress_mcp.customer_country', NULL, 'Sales governance board');

SELECT clarify.govern_role('regress_mcp_agent');
GRANT EXECUTE ON FUNCTION clarify.confirm, clarify.revoke TO regress_mcp_app;
