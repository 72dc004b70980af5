// What the person reads of a period and of their own words, without a database: each window's
// evaluated range in the session's zone (dates with the last day included when both sides fall
// on midnight, times with the end said to be excluded otherwise), and the governed words of
// their question the elicitation is about.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { choiceRequest, mentionedLine } from "../src/elicitation.js";
import { describeRange } from "../src/periods.js";
import type { Slot } from "../src/rejection.js";
import { clarificationResult } from "../src/results.js";

// Q3 2026 as a window evaluated in Europe/Berlin (midnight there is 22:00 UTC in summer).
const BERLIN_Q3 = { start: "2026-06-30T22:00:00Z", end: "2026-09-30T22:00:00Z" };
const FISCAL_Q3 = { start: "2026-07-31T22:00:00Z", end: "2026-10-31T23:00:00Z" };

const period: Slot = {
    kind: "time_range",
    term: "last quarter",
    state: "AMBIGUOUS",
    question: 'When you say "last quarter", do you mean:',
    measure: "metric.invoiced_revenue",
    options: [
        {
            value: "window.q3",
            label: "Calendar Q3 2026",
            description: "July to September",
            range: BERLIN_Q3,
        },
        {
            value: "window.fq3",
            label: "Fiscal Q3 2026",
            description: "August to October",
            range: FISCAL_Q3,
        },
    ],
};

describe("a period as people read it", () => {
    test("midnight to midnight in the session's zone: dates, the last day included", () => {
        assert.equal(describeRange(BERLIN_Q3, "Europe/Berlin"), "1 Jul – 30 Sep 2026");
        // Across the change back to winter time (25 October 2026) the end is still midnight.
        assert.equal(describeRange(FISCAL_Q3, "Europe/Berlin"), "1 Aug – 31 Oct 2026");
        assert.equal(
            describeRange({ start: "2025-12-01T00:00:00Z", end: "2026-03-01T00:00:00Z" }, "UTC"),
            "1 Dec 2025 – 28 Feb 2026",
        );
        assert.equal(
            describeRange({ start: "2026-03-01T00:00:00Z", end: "2026-03-02T00:00:00Z" }, "UTC"),
            "1 Mar 2026",
        );
    });

    test("not on midnight in the zone: times, the end said to be excluded", () => {
        assert.equal(
            describeRange(BERLIN_Q3, "UTC"),
            "30 Jun 2026 22:00 – 30 Sep 2026 22:00 (end excluded)",
        );
    });

    test("an open side, an unknown zone, no range", () => {
        assert.equal(
            describeRange({ start: "2026-01-01T00:00:00Z", end: null }, "UTC"),
            "from 1 Jan 2026",
        );
        assert.equal(
            describeRange({ start: null, end: "2026-01-01T00:00:00Z" }, "UTC"),
            "until 31 Dec 2025",
        );
        assert.equal(describeRange(BERLIN_Q3, "not/a zone"), describeRange(BERLIN_Q3, "UTC"));
        assert.equal(describeRange(undefined, "UTC"), null);
        assert.equal(describeRange({ start: null, end: null }, "UTC"), null);
    });

    test("the elicitation's options show each window's range in the session's zone", () => {
        const request = choiceRequest(period, "What was invoiced revenue last quarter?", {
            mentioned: ["last quarter"],
            timeZone: "Europe/Berlin",
        });
        const field = request.requestedSchema.properties.meaning as {
            oneOf: { const: string; title: string }[];
        };
        assert.deepEqual(
            field.oneOf.map((o) => o.title),
            [
                "Calendar Q3 2026 — July to September (1 Jul – 30 Sep 2026)",
                "Fiscal Q3 2026 — August to October (1 Aug – 31 Oct 2026)",
                "Other (describe below)",
            ],
        );
    });

    test("a client without elicitation lists the ranges too", () => {
        const rejection = {
            sqlstate: "QC001",
            state: "AMBIGUOUS",
            message: "m",
            hint: null,
            questionId: "q",
            decisionId: null,
            slots: [period],
        };
        const text = (
            clarificationResult(rejection, period, "q", {
                mentioned: ["last quarter"],
                timeZone: "Europe/Berlin",
            }).content[0] as { text: string }
        ).text;
        assert.match(
            text,
            /- Calendar Q3 2026: July to September \(1 Jul – 30 Sep 2026\) \(window\.q3\)/,
        );
        assert.match(text, /This is about "last quarter", a word of your question\./);
        assert.match(text, /"mentioned_terms": \[\s*"last quarter"\s*\]/);
    });
});

describe("the person's words the question is about", () => {
    test("the slot's term among the mentioned ones, with the others", () => {
        assert.equal(
            mentionedLine("revenue", ["revenue"]),
            'This is about "revenue", a word of your question.',
        );
        assert.equal(
            mentionedLine("revenue", ["country", "revenue", "last quarter"]),
            'This is about "revenue", a word of your question (it also mentions "country" and "last quarter").',
        );
    });

    test("a slot about a term the question does not say, or no governed word at all", () => {
        assert.equal(mentionedLine("revenue", ["country"]), 'Your question mentions "country".');
        assert.equal(mentionedLine("revenue", []), null);
    });

    test("the elicitation message carries the line between the gate's question and the model's", () => {
        const request = choiceRequest(period, "What was invoiced revenue last quarter?", {
            mentioned: ["last quarter"],
            timeZone: "UTC",
        });
        assert.deepEqual(request.message.split("\n"), [
            'When you say "last quarter", do you mean:',
            'This is about "last quarter", a word of your question.',
            "For your question, as the assistant worded it: “What was invoiced revenue last quarter?”",
        ]);
    });
});
