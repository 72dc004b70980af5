// GRAIN (QC006): a governed measure summed over a join that repeats its rows is a tool error
// with the gate's message, hint and slots. Runs once the gate raises QC006: move this file to
// test/grain.test.ts (scripts/test runs test/*.test.ts).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { approvals, choose, dropFixture, jsonOf, loadFixture, session, textOf } from "./helpers.js";

describe("grain", () => {
    before(loadFixture);
    after(dropFixture);

    test("a fan-out join is a tool error carrying the hint, nothing is asked", async () => {
        const s = await session({ elicit: choose("Booked revenue") });
        try {
            const sql =
                "SELECT sum(o.booked_amount) FROM regress_mcp_sales.orders o " +
                "JOIN regress_mcp_sales.order_lines l ON l.order_id = o.id";
            const result = await s.call("query", {
                sql,
                question: `Booked revenue per order line ${process.pid}`,
            });
            assert.equal(result.isError, true, textOf(result));
            const body = jsonOf(result);
            assert.equal(body.sqlstate, "QC006");
            assert.equal(body.state, "GRAIN");
            assert.ok(typeof body.hint === "string" && body.hint.length > 0);
            assert.match(textOf(result), /Hint: /);
            const slots = body.slots as { kind: string }[];
            assert.ok(
                slots.some((slot) => slot.kind === "fanout"),
                textOf(result),
            );
            assert.equal(s.asked.length, 0);
            assert.deepEqual(await approvals(body.question_id as string), []);
        } finally {
            await s.close();
        }
    });
});
