-- The demo's customers (examples/demo.py, section 10): two are named "Acme Corp", and the DBA
-- registers the name column as an entity (docs/dba-guide.md, "Entities").
CREATE TABLE sales.customers (id int PRIMARY KEY, name text NOT NULL, city text);
CREATE INDEX ON sales.customers (lower(name));
INSERT INTO sales.customers VALUES (101, 'Acme Corp', 'Berlin'), (102, 'Acme Corp', 'Paris'),
                                   (103, 'Globex', 'Springfield');
CREATE TABLE sales.customer_orders (order_id int PRIMARY KEY, customer_id int NOT NULL);
INSERT INTO sales.customer_orders SELECT id, 101 + id % 3 FROM sales.orders;
GRANT SELECT ON sales.customers, sales.customer_orders TO agent;
INSERT INTO clarify.entities (relation, name_column, key_column, label, detail_columns, approved_by)
  VALUES ('sales.customers', 'name', 'id', 'Customer', '{city}', 'Sales operations');
