// Segment slots (contract §15) through the query tool, against the real gate: which "active
// customers" is asked in business words (never the predicate), and once it is settled the model
// is told which filter to apply; the rows then list the segment among the meanings used.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import type { Rejection, Slot } from "../src/rejection.js";
import { askingSlot } from "../src/rejection.js";
import { isFilterSlot } from "../src/segments.js";
import { admin, choose, dropFixture, jsonOf, loadFixture, session, textOf } from "./helpers.js";

const TABLE = "regress_mcp_sales.customers";
const PURCHASED = "last_order_at >= current_date - 30";
const COUNT = `SELECT count(*) FROM ${TABLE}`;

const SEGMENTS_SQL = `
CREATE TABLE ${TABLE} (id int PRIMARY KEY, last_order_at date, last_login_at date);
INSERT INTO ${TABLE} VALUES (1, current_date - 3, current_date - 40),
  (2, current_date - 90, current_date - 1), (3, current_date - 10, current_date - 10);
GRANT SELECT ON ${TABLE} TO regress_mcp_agent;
INSERT INTO clarify.concepts (id, kind, label, description, owner, status, segment_relation,
                              segment_predicate) VALUES
  ('regress_mcp.purchased_30d', 'segment', 'Purchased in the last 30 days',
   'Placed an order recently', 'Sales', 'approved', '${TABLE}', '${PURCHASED}'),
  ('regress_mcp.logged_in_30d', 'segment', 'Logged in in the last 30 days',
   'Used the product recently', 'Product', 'approved', '${TABLE}',
   'last_login_at >= current_date - 30');
INSERT INTO clarify.terms (term, concept_id) VALUES
  ('mcp active customers', 'regress_mcp.purchased_30d'),
  ('mcp active customers', 'regress_mcp.logged_in_30d');
`;

let run = 0;
/** A question text no other test or run has asked, so no earlier confirmation applies. */
function fresh(text: string): string {
    run += 1;
    return `${text} (run ${process.pid}.${run})`;
}

describe("a segment term through the query tool", () => {
    before(async () => {
        await loadFixture();
        await admin.query(SEGMENTS_SQL);
    });
    after(dropFixture);

    test("asked in business words, then the filter is the model's to apply", async () => {
        const s = await session({ elicit: choose("Purchased in the last 30 days") });
        try {
            const question = fresh("How many mcp active customers do we have?");
            const refused = await s.call("query", { sql: COUNT, question });

            // The person saw the business question and the labels with descriptions only.
            assert.equal(s.asked.length, 1);
            const asked = s.asked[0];
            assert.match(asked.message, /^When you say "mcp active customers", do you mean:/);
            const field = asked.requestedSchema.properties.meaning as {
                oneOf: { const: string; title: string }[];
            };
            assert.deepEqual(
                field.oneOf.map((o) => o.title),
                [
                    "Logged in in the last 30 days — Used the product recently",
                    "Purchased in the last 30 days — Placed an order recently",
                    "Other (describe below)",
                ],
            );
            assert.doesNotMatch(JSON.stringify(asked), /current_date|last_order_at|last_login_at/);

            // The statement filters nothing: the model is told which filter to apply.
            assert.equal(refused.isError, true);
            const text = textOf(refused);
            assert.match(
                text,
                /"mcp active customers" means Purchased in the last 30 days for this question \(confirmed by the user\)/,
            );
            assert.ok(
                text.includes(`Apply this filter to ${TABLE}: ${PURCHASED}`),
                `no filter to apply in: ${text}`,
            );
            const body = jsonOf(refused);
            assert.equal(body.status, "apply_filter");
            assert.equal(body.filter, PURCHASED);
            assert.equal(body.segment, "regress_mcp.purchased_30d");
            assert.equal(body.sqlstate, "QC003");

            // Another segment's filter: told to apply the chosen one and drop that one.
            const other = await s.call("query", {
                sql: `${COUNT} WHERE last_login_at >= current_date - 30`,
                question,
            });
            assert.equal(other.isError, true);
            assert.match(
                textOf(other),
                /applies Logged in in the last 30 days \(regress_mcp\.logged_in_30d\) instead: drop that filter/,
            );

            // Rewritten as told: the rows, with the segment among the meanings used.
            const rows = await s.call("query", { sql: `${COUNT} WHERE ${PURCHASED}`, question });
            assert.equal(rows.isError, false, textOf(rows));
            assert.deepEqual(jsonOf(rows).rows, [["2"]]);
            assert.match(
                textOf(rows),
                /Meanings used: Purchased in the last 30 days, confirmed by the user\./,
            );
            assert.equal(s.asked.length, 1, "the person is asked once");
        } finally {
            await s.close();
        }
    });

    test("without elicitation, the options are listed without the predicate", async () => {
        const s = await session();
        try {
            const result = await s.call("query", {
                sql: COUNT,
                question: fresh("How many mcp active customers do we have?"),
            });
            assert.equal(result.isError, true);
            const text = textOf(result);
            assert.match(text, /- Purchased in the last 30 days: Placed an order recently/);
            assert.match(text, /- Logged in in the last 30 days: Used the product recently/);
            const head = text.slice(0, text.indexOf("\n{"));
            assert.doesNotMatch(head, /current_date/);
        } finally {
            await s.close();
        }
    });
});

describe("which segment slots name a filter", () => {
    const options = [
        { value: "segment.a", label: "A" },
        { value: "segment.b", label: "B" },
    ];
    const slot = (expected: string, state = "MISMATCH"): Slot => ({
        kind: "segment",
        term: "active customers",
        state,
        options,
        expected,
    });
    const rejection = (slots: Slot[]): Rejection => ({
        sqlstate: "QC003",
        state: "MISMATCH",
        message: "m",
        hint: null,
        questionId: "q",
        decisionId: "1",
        slots,
    });

    test("a predicate in expected is a filter to apply, never asked of the person", () => {
        assert.equal(isFilterSlot(slot("x >= 1")), true);
        assert.equal(askingSlot(rejection([slot("x >= 1")])), null);
    });

    test("a segment read against another default (expected: a concept id) is asked", () => {
        assert.equal(isFilterSlot(slot("segment.a")), false);
        assert.equal(isFilterSlot(slot("x >= 1", "AMBIGUOUS")), false);
        assert.equal(askingSlot(rejection([slot("segment.a")]))?.expected, "segment.a");
    });
});
