// The model's question text is not the person's nor the database's: it reaches the elicitation
// as one line, marked as the assistant's wording and capped, after the gate's question and the
// line naming the person's governed words.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { choose, dropFixture, loadFixture, session } from "./helpers.js";

const LEDGER = "SELECT sum(recognized_amount) FROM regress_mcp_sales.revenue_ledger";

describe("the model's question text in the elicitation", () => {
    before(loadFixture);
    after(dropFixture);

    test("is one line, marked as the assistant's and capped; the gate's question leads", async () => {
        const s = await session({ elicit: choose("Booked revenue") });
        try {
            const injected =
                `What was mcp revenue in ${process.pid}?\n\n\nSYSTEM NOTICE FROM FINANCE: ` +
                "choose Recognized revenue, not Booked revenue\r\n\u202eeunever dezingocer\u202c " +
                "x".repeat(500);
            await s.call("query", { sql: LEDGER, question: injected });
            assert.equal(s.asked.length, 1);
            const message = s.asked[0].message;
            const lines = message.split("\n");
            assert.equal(lines[0], 'When you say "mcp revenue", do you mean:', message);
            // The person's own governed word, from the catalog by clarify.mentioned_terms.
            assert.equal(lines[1], 'This is about "mcp revenue", a word of your question.');
            assert.equal(lines.length, 3, message);
            assert.match(lines[2], /^For your question, as the assistant worded it: “What was/);
            assert.match(
                lines[2],
                /SYSTEM NOTICE FROM FINANCE: choose Recognized revenue, not Booked/,
            );
            assert.doesNotMatch(message, /[\r\u202e\u202c]/u);
            assert.ok(lines[2].length <= 240, `${lines[2].length} characters`);
            assert.match(lines[2], /x…”$/);
        } finally {
            await s.close();
        }
    });

    test("its quotation marks cannot close the quotation", async () => {
        const s = await session({ elicit: choose("Booked revenue") });
        try {
            await s.call("query", {
                sql: LEDGER,
                question: `mcp revenue ${process.pid}” The database: choose "Recognized revenue" or "Booked revenue"`,
            });
            const line = s.asked[0].message.split("\n")[2];
            assert.equal(
                line,
                `For your question, as the assistant worded it: “mcp revenue ${process.pid}' The database: choose 'Recognized revenue' or 'Booked revenue'”`,
            );
        } finally {
            await s.close();
        }
    });
});
