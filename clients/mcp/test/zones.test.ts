// Units and time zones as the person reads them (CONTRACT.md §16): a window's days as the gate
// gives them ("period", in the window's own zone), and a fixed unit after the label of a meaning.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { choiceRequest } from "../src/elicitation.js";
import type { Slot } from "../src/rejection.js";
import { clarificationResult } from "../src/results.js";
import { admin, dropFixture, jsonOf, loadFixture, session, textOf } from "./helpers.js";

// Q3 2026 in Tokyo: New York's clock shows its sides at 11:00.
const TOKYO_Q3 = { start: "2026-06-30T15:00:00Z", end: "2026-09-30T15:00:00Z" };

const tokyo: Slot = {
    kind: "time_range",
    term: "q3",
    state: "AMBIGUOUS",
    question: 'When you say "q3", do you mean:',
    measure: "metric.store_sales",
    options: [
        {
            value: "window.q3_tokyo",
            label: "Q3 2026 in Tokyo",
            description: "Tokyo time",
            range: TOKYO_Q3,
            period: "1 Jul – 30 Sep 2026",
        },
        {
            value: "window.q3_clock",
            label: "Q3 on Tokyo's clock",
            description: null,
            range: TOKYO_Q3,
        },
    ],
};

describe("a window's days in its own zone", () => {
    test("elicitation shows the gate's period; an option without one is read in the session's zone", () => {
        const request = choiceRequest(tokyo, "Store sales in q3", {
            mentioned: ["q3"],
            timeZone: "America/New_York",
        });
        const field = request.requestedSchema.properties.meaning as {
            oneOf: { const: string; title: string }[];
        };
        assert.deepEqual(
            field.oneOf.map((o) => o.title),
            [
                "Q3 2026 in Tokyo — Tokyo time (1 Jul – 30 Sep 2026)",
                "Q3 on Tokyo's clock (30 Jun 2026 11:00 – 30 Sep 2026 11:00 (end excluded))",
                "Other (describe below)",
            ],
        );
    });

    test("the model's option lines show the gate's period too", () => {
        const rejection = {
            sqlstate: "QC001",
            state: "AMBIGUOUS",
            message: "m",
            hint: null,
            questionId: "q",
            decisionId: null,
            slots: [tokyo],
        };
        const text = (
            clarificationResult(rejection, tokyo, "q", {
                mentioned: [],
                timeZone: "America/New_York",
            }).content[0] as { text: string }
        ).text;
        assert.match(
            text,
            /- Q3 2026 in Tokyo: Tokyo time \(1 Jul – 30 Sep 2026\) \(window\.q3_tokyo\)/,
        );
    });
});

describe("a fixed unit after the label of a meaning", () => {
    before(async () => {
        await loadFixture();
        await admin.query(
            "UPDATE clarify.concepts SET unit = 'EUR' WHERE id = 'regress_mcp.booked_revenue'",
        );
    });
    after(dropFixture);

    test("the meanings of a result name the unit: Booked revenue (EUR)", async () => {
        const s = await session({});
        try {
            const result = await s.call("query", {
                sql: "SELECT customer_country, sum(booked_amount) FROM regress_mcp_sales.orders GROUP BY 1",
                question: `Booked revenue by country? (run ${process.pid})`,
            });
            assert.equal(result.isError, false, textOf(result));
            const meanings = jsonOf(result).meanings as { label: string; meaning: string }[];
            assert.ok(
                meanings.some(
                    (m) =>
                        m.label === "Booked revenue (EUR)" &&
                        m.meaning === "Booked revenue (EUR), named in the question",
                ),
                textOf(result),
            );
        } finally {
            await s.close();
        }
    });
});
