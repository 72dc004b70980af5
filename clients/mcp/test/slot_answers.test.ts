// What the person is asked and what their answer settles, without a database: one period is one
// question whatever state asks it, an empty "Other" settles nothing, the field speaks the
// business's words, and the meanings reported name the period used.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { choiceRequest, readAnswer } from "../src/elicitation.js";
import { type Slot, slotKey } from "../src/rejection.js";
import { meaningsOf } from "../src/results.js";

const windows = [
    { value: "window.calendar_q3", label: "Calendar Q3 2026", description: "July to September" },
    { value: "window.fiscal_q3", label: "Fiscal Q3 2026", description: "August to October" },
];

describe("the period's slot", () => {
    test("has one key whether QC001 (no term) or QC003 (the window's term) asks it", () => {
        const asked: Slot = {
            kind: "time_range",
            term: null,
            state: "AMBIGUOUS",
            measure: "metric.invoiced_revenue",
            options: windows,
        };
        const mismatch: Slot = {
            kind: "time_range",
            term: "last quarter",
            state: "MISMATCH",
            measure: "metric.invoiced_revenue",
            options: windows,
        };
        assert.equal(slotKey(asked), slotKey(mismatch));
        assert.notEqual(
            slotKey(asked),
            slotKey({ ...asked, measure: "metric.booked_revenue" }),
            "another measure's period is another question",
        );
    });
});

describe("the elicitation", () => {
    const slot: Slot = {
        kind: "metric",
        term: "revenue",
        state: "AMBIGUOUS",
        reason: "3 approved meanings and no default applies",
        question: 'When you say "revenue", do you mean Booked revenue or Invoiced revenue?',
        options: [
            { value: "metric.booked", label: "Booked revenue", description: "Accepted orders" },
            { value: "metric.invoiced", label: "Invoiced revenue", description: "Billed" },
        ],
    };

    test("describes the field with the business question, never the gate's internal reason", () => {
        const field = choiceRequest(slot, "What is our revenue?").requestedSchema.properties
            .meaning as { description?: string; oneOf: { title: string }[] };
        assert.equal(field.description, slot.question);
        assert.deepEqual(
            field.oneOf.map((o) => o.title),
            [
                "Booked revenue — Accepted orders",
                "Invoiced revenue — Billed",
                "Other (describe below)",
            ],
        );
    });

    test("an empty Other answer settles nothing", () => {
        for (const other of ["", "   ", undefined]) {
            assert.throws(
                () =>
                    readAnswer(slot, {
                        action: "accept",
                        content: { meaning: ":other", other } as Record<string, string>,
                    }),
                /Other.*without saying/,
            );
        }
        assert.deepEqual(
            readAnswer(slot, {
                action: "accept",
                content: { meaning: ":other", other: " net of refunds " },
            }),
            { kind: "other", text: "net of refunds" },
        );
    });
});

describe("the meanings reported with the rows", () => {
    test("name the period a dated measure was read for", () => {
        const meanings = meaningsOf(
            {
                bindings: [
                    {
                        column: "sales.invoices.invoiced_amount",
                        concept: "metric.invoiced_revenue",
                        source: "approved_default",
                        window: "window.fiscal_q3",
                        range: { start: "2026-08-01", end: "2026-11-01" },
                    },
                ],
            },
            new Map([
                ["metric.invoiced_revenue", "Invoiced revenue"],
                ["window.fiscal_q3", "Fiscal Q3 2026"],
            ]),
        );
        assert.equal(
            meanings[0].meaning,
            "Invoiced revenue, the approved default, for Fiscal Q3 2026",
        );
    });
});
