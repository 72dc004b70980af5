// The parts that need no server: question ids, records, statement screening, rejections, forms.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { choiceRequest, OTHER, readAnswer } from "../src/elicitation.js";
import { QuestionBook, recordFor } from "../src/questions.js";
import { askingSlot, readRejection, type Slot } from "../src/rejection.js";
import { firstKeyword, requireQuery } from "../src/statement.js";

const SLOT: Slot = {
    kind: "metric",
    term: "revenue",
    state: "AMBIGUOUS",
    question: 'When you say "revenue", do you mean:',
    options: [
        { value: "metric.booked", label: "Booked revenue", description: "Accepted orders" },
        { value: "metric.recognized", label: "Recognized revenue", description: null },
    ],
};

describe("questions", () => {
    test("one id per question text, kept across calls; white space around it does not count", () => {
        const book = new QuestionBook();
        const a = book.question("Revenue by country?");
        assert.equal(book.question("  Revenue by country?\n").id, a.id);
        assert.notEqual(book.question("Revenue by month?").id, a.id);
        assert.match(a.id, /^q_mcp_[0-9a-f]{16}$/);
    });

    test("the oldest question is forgotten past the limit", () => {
        const book = new QuestionBook(2);
        const first = book.question("one").id;
        book.question("two");
        book.question("three");
        assert.notEqual(book.question("one").id, first);
    });

    test("the record carries the earned bindings; a binding without a term omits it", () => {
        const q = new QuestionBook().question("q");
        q.confirmed.set("term:revenue", {
            term: "revenue",
            concept: "metric.booked",
            source: "user_confirmation",
        });
        const record = JSON.parse(
            recordFor(q, [{ term: null, concept: "metric.x", source: "explicit" }]),
        ) as Record<string, unknown>;
        assert.deepEqual(record, {
            question_id: q.id,
            question: "q",
            bindings: [
                { term: "revenue", concept: "metric.booked", source: "user_confirmation" },
                { concept: "metric.x", source: "explicit" },
            ],
        });
    });
});

describe("statements", () => {
    test("the first keyword is found after comments, white space and parentheses", () => {
        assert.equal(firstKeyword("  -- note\n /* a */ (( SELECT 1))"), "select");
        assert.equal(firstKeyword("/* unterminated"), "");
        assert.equal(firstKeyword("with x as (select 1) select * from x"), "with");
    });

    test("only queries are accepted", () => {
        for (const sql of ["SELECT 1", "VALUES (1)", "TABLE t", "WITH a AS (SELECT 1) TABLE a"]) {
            assert.doesNotThrow(() => requireQuery(sql), sql);
        }
        for (const sql of ["UPDATE t SET a = 1", "SET ROLE x", "COMMIT", "", "-- only"]) {
            assert.throws(() => requireQuery(sql), sql);
        }
    });
});

describe("rejections", () => {
    test("a gate error is read with its payload; another error is not a rejection", () => {
        const detail = JSON.stringify({ state: "AMBIGUOUS", question_id: "q1", slots: [SLOT] });
        const r = readRejection({ code: "QC001", message: "m", hint: "h", detail });
        assert.equal(r?.state, "AMBIGUOUS");
        assert.equal(r?.questionId, "q1");
        assert.equal(askingSlot(r!)?.term, "revenue");
        assert.equal(readRejection({ code: "42601", message: "syntax" }), null);
        assert.equal(readRejection(null), null);
    });

    test("a DETAIL that is not JSON leaves message and hint, and no slot to ask", () => {
        const r = readRejection({ code: "QC001", message: "m", hint: "h", detail: "{oops" });
        assert.equal(r?.message, "m");
        assert.deepEqual(r?.slots, []);
        assert.equal(askingSlot(r!), null);
    });

    test("only QC001 and QC003 ask; the first slot with options, in payload order", () => {
        const noOptions: Slot = { ...SLOT, term: "margin", options: [] };
        const country: Slot = { ...SLOT, term: "country", state: "MISMATCH" };
        const detail = JSON.stringify({ slots: [noOptions, country, SLOT] });
        assert.equal(askingSlot(readRejection({ code: "QC003", detail })!)?.term, "country");
        assert.equal(askingSlot(readRejection({ code: "QC002", detail })!), null);
        assert.equal(askingSlot(readRejection({ code: "QC006", detail })!), null);
    });
});

describe("elicitation forms", () => {
    test("a single-choice field of labels with descriptions, plus Other", () => {
        const request = choiceRequest(SLOT, "Revenue?");
        const field = request.requestedSchema.properties.meaning as {
            oneOf: { const: string; title: string }[];
        };
        assert.deepEqual(field.oneOf, [
            { const: "metric.booked", title: "Booked revenue — Accepted orders" },
            { const: "metric.recognized", title: "Recognized revenue" },
            { const: OTHER, title: "Other (describe below)" },
        ]);
        assert.deepEqual(request.requestedSchema.required, ["meaning"]);
    });

    test("answers: a choice, Other with its text, decline, and a value never offered", () => {
        assert.deepEqual(
            readAnswer(SLOT, { action: "accept", content: { meaning: "metric.booked" } }),
            { kind: "chosen", concept: "metric.booked", label: "Booked revenue" },
        );
        assert.deepEqual(
            readAnswer(SLOT, { action: "accept", content: { meaning: OTHER, other: " net " } }),
            { kind: "other", text: "net" },
        );
        assert.deepEqual(readAnswer(SLOT, { action: "cancel" }), {
            kind: "declined",
            action: "cancel",
        });
        assert.throws(() =>
            readAnswer(SLOT, { action: "accept", content: { meaning: "metric.forged" } }),
        );
    });
});
