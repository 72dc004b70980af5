-- The demo's segments (examples/demo.py, section 11): "active customers" is a filter, three
-- approved meanings of it over sales.customers (docs/dba-guide.md, "Segments").
ALTER TABLE sales.customers ADD COLUMN last_order_at date, ADD COLUMN last_login_at date,
                            ADD COLUMN contract_active boolean NOT NULL DEFAULT false;
UPDATE sales.customers SET last_order_at = current_date - 12, last_login_at = current_date - 2,
                           contract_active = true WHERE id = 101;
UPDATE sales.customers SET last_order_at = current_date - 95, last_login_at = current_date - 5
 WHERE id = 102;
UPDATE sales.customers SET last_order_at = current_date - 3, last_login_at = current_date - 20
 WHERE id = 103;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation, segment_predicate) VALUES
  ('segment.purchased_30d', 'segment', 'Purchased in the last 30 days', 'Placed an order in the last 30 days',
   'Sales', 'approved', 'sales.customers', 'last_order_at >= current_date - 30'),
  ('segment.logged_in_30d', 'segment', 'Logged in in the last 30 days', 'Used the product in the last 30 days',
   'Product', 'approved', 'sales.customers', 'last_login_at >= current_date - 30'),
  ('segment.active_contract', 'segment', 'Holds an active contract', 'A signed contract that has not ended',
   'Finance', 'approved', 'sales.customers', 'contract_active');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('active customers', 'segment.purchased_30d'), ('active customers', 'segment.logged_in_30d'),
  ('active customers', 'segment.active_contract');
