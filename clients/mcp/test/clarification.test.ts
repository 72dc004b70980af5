// The query tool's clarification loop against the real gate: elicitation accepted, declined,
// cancelled, "Other", a client without elicitation, meanings named in the question.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import type { ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";

import {
    AGENT,
    approvals,
    CLIENT_NAME,
    choose,
    dropFixture,
    jsonOf,
    loadFixture,
    session,
    textOf,
} from "./helpers.js";

const LEDGER =
    "SELECT customer_country, sum(recognized_amount) AS total FROM regress_mcp_sales.revenue_ledger GROUP BY 1 ORDER BY 1";
const LEDGER_ROWS = [
    ["France", "800.00"],
    ["Germany", "1350.00"],
];

function titleOf(request: ElicitRequestFormParams): string {
    return (request.requestedSchema.properties.meaning as { title?: string }).title ?? "";
}

let run = 0;
/** A question text no other test or run has asked, so no earlier confirmation applies. */
function fresh(text: string): string {
    run += 1;
    return `${text} (run ${process.pid}.${run})`;
}

describe("query asks the person through elicitation", () => {
    before(loadFixture);
    after(dropFixture);

    test("accepted: the choice is confirmed as the confirmer, bound, and the rows come back", async () => {
        const s = await session({ elicit: choose("Recognized revenue") });
        try {
            const result = await s.call("query", {
                sql: LEDGER,
                question: fresh("What was mcp revenue by country?"),
            });
            assert.equal(result.isError, false, textOf(result));
            const body = jsonOf(result);
            assert.deepEqual(body.rows, LEDGER_ROWS);
            const meanings = body.meanings as { meaning: string; source: string }[];
            assert.ok(
                meanings.some((m) => m.meaning === "Recognized revenue, confirmed by the user"),
                textOf(result),
            );
            assert.match(textOf(result), /Recognized revenue, confirmed by the user/);

            // One question: a single-choice field of the labels with descriptions, plus Other.
            assert.equal(s.asked.length, 1);
            const field = s.asked[0].requestedSchema.properties.meaning as {
                oneOf: { const: string; title: string }[];
            };
            assert.deepEqual(
                field.oneOf.map((o) => o.title),
                [
                    "Booked revenue — Value of accepted orders",
                    "Recognized revenue — Revenue recognized under the accounting standard",
                    "Other (describe below)",
                ],
            );

            const rows = await approvals(body.question_id as string);
            assert.equal(rows.length, 1);
            assert.equal(rows[0].concept_id, "regress_mcp.recognized_revenue");
            assert.equal(rows[0].term, "mcp revenue");
            assert.equal(rows[0].granted_to, AGENT);
            assert.match(rows[0].confirmed_by, new RegExp(CLIENT_NAME));
            assert.match(rows[0].confirmed_by, /elicitation/);
        } finally {
            await s.close();
        }
    });

    test("the question id is kept across calls about one question: no second question", async () => {
        const s = await session({ elicit: choose("Recognized revenue") });
        try {
            const question = fresh("mcp revenue by country again?");
            const first = jsonOf(await s.call("query", { sql: LEDGER, question }));
            const second = await s.call("query", { sql: LEDGER, question });
            assert.equal(second.isError, false, textOf(second));
            assert.equal(jsonOf(second).question_id, first.question_id);
            assert.equal(s.asked.length, 1);
        } finally {
            await s.close();
        }
    });

    test("slots are asked one per round, in payload order (AMBIGUOUS metric, then MISMATCH dimension)", async () => {
        const s = await session({
            elicit: (request) =>
                choose(
                    titleOf(request).includes("mcp country")
                        ? "Shipping country"
                        : "Booked revenue",
                )(request),
        });
        try {
            const sql =
                "SELECT ship_country, sum(booked_amount) FROM regress_mcp_sales.orders GROUP BY 1 ORDER BY 1";
            const result = await s.call("query", {
                sql,
                question: fresh("mcp revenue by mcp country"),
            });
            assert.equal(result.isError, false, textOf(result));
            assert.deepEqual(jsonOf(result).rows, [
                ["Belgium", "950.00"],
                ["Germany", "1200.00"],
            ]);
            assert.equal(s.asked.length, 2);
            assert.deepEqual(s.asked.map(titleOf), [
                'Meaning of "mcp revenue"',
                'Meaning of "mcp country"',
            ]);
            const rows = await approvals(jsonOf(result).question_id as string);
            assert.deepEqual(
                rows.map((r) => r.concept_id),
                ["regress_mcp.booked_revenue", "regress_mcp.shipping_country"],
            );
        } finally {
            await s.close();
        }
    });

    test("a choice other than the meaning read is confirmed, and the model is told to rewrite", async () => {
        const s = await session({ elicit: choose("Booked revenue") });
        try {
            const result = await s.call("query", {
                sql: LEDGER,
                question: fresh("mcp revenue by country, booked"),
            });
            assert.equal(result.isError, true);
            assert.match(textOf(result), /MISMATCH/);
            assert.match(textOf(result), /rewrite/);
            assert.equal(s.asked.length, 1);
        } finally {
            await s.close();
        }
    });

    for (const action of ["decline", "cancel"] as const) {
        test(`${action}: nothing is confirmed and the clarification is a tool error`, async () => {
            const s = await session({ elicit: () => ({ action }) });
            try {
                const result = await s.call("query", {
                    sql: LEDGER,
                    question: fresh(`mcp revenue, ${action}`),
                });
                assert.equal(result.isError, true);
                const body = jsonOf(result);
                assert.equal(body.sqlstate, "QC001");
                assert.ok(typeof body.hint === "string" && body.hint.includes("mcp revenue"));
                assert.equal((body.slots as unknown[]).length, 1);
                assert.match(textOf(result), /nothing was confirmed/);
                assert.deepEqual(await approvals(body.question_id as string), []);
            } finally {
                await s.close();
            }
        });
    }

    test("Other: the person's words go back to the model, nothing is confirmed", async () => {
        const s = await session({
            elicit: () => ({
                action: "accept",
                content: { meaning: ":other", other: "revenue net of returns" },
            }),
        });
        try {
            const result = await s.call("query", {
                sql: LEDGER,
                question: fresh("mcp revenue, other"),
            });
            assert.equal(result.isError, true);
            assert.match(textOf(result), /revenue net of returns/);
            const body = jsonOf(result);
            assert.equal(body.status, "not_confirmed");
            assert.deepEqual(await approvals(body.question_id as string), []);
        } finally {
            await s.close();
        }
    });

    test("a client without elicitation gets the question and options, for the application to record", async () => {
        const s = await session();
        try {
            const result = await s.call("query", {
                sql: LEDGER,
                question: fresh("mcp revenue, no elicitation"),
            });
            assert.equal(result.isError, true);
            const text = textOf(result);
            assert.match(text, /When you say "mcp revenue", do you mean:/);
            assert.match(text, /- Booked revenue: Value of accepted orders/);
            assert.match(
                text,
                /- Recognized revenue: Revenue recognized under the accounting standard/,
            );
            assert.match(text, /recorded by the application.*never by the model/);
            const body = jsonOf(result);
            assert.equal(body.status, "awaiting_clarification");
            assert.deepEqual(await approvals(body.question_id as string), []);
        } finally {
            await s.close();
        }
    });

    test("a question naming the meaning runs with an explicit binding the gate verified", async () => {
        const s = await session({ elicit: choose("Booked revenue") });
        try {
            const result = await s.call("query", {
                sql: LEDGER,
                question: fresh("Recognized revenue by country?"),
            });
            assert.equal(result.isError, false, textOf(result));
            assert.match(textOf(result), /Recognized revenue, named in the question/);
            assert.equal(s.asked.length, 0);
        } finally {
            await s.close();
        }
    });

    test("a name the gate does not accept as explicit (not a whole word) is asked after all", async () => {
        const s = await session({ elicit: choose("Recognized revenue") });
        try {
            const result = await s.call("query", {
                sql: LEDGER,
                question: fresh("Unrecognized revenue by country?"),
            });
            assert.equal(result.isError, false, textOf(result));
            assert.equal(s.asked.length, 1);
            assert.match(textOf(result), /Recognized revenue, confirmed by the user/);
        } finally {
            await s.close();
        }
    });
});
