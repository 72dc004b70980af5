// The clarification budget as the person and the model see it (no database): "question 2 of 3",
// and once the budget is spent, that the choice is the person's.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { choiceRequest } from "../src/elicitation.js";
import { readRejection } from "../src/rejection.js";
import { clarificationResult } from "../src/results.js";
import { roundLine, yoursLine } from "../src/rounds.js";

const SLOT = {
    kind: "metric",
    term: "revenue",
    state: "AMBIGUOUS",
    question: 'When you say "revenue", do you mean:',
    options: [
        { value: "metric.booked", label: "Booked revenue", description: "Accepted orders" },
        { value: "metric.invoiced", label: "Invoiced revenue", description: "Amounts billed" },
    ],
};

function rejected(rounds: Record<string, unknown>) {
    const detail = JSON.stringify({
        decision_id: "1",
        state: "AMBIGUOUS",
        question_id: "q_1",
        slots: [SLOT],
        ...rounds,
    });
    const r = readRejection({ code: "QC001", message: "ambiguous", hint: "h", detail });
    assert.ok(r);
    return r;
}

const textOf = (result: { content: unknown[] }): string =>
    (result.content as { text: string }[]).map((c) => c.text).join("\n");

describe("the clarification budget", () => {
    test("reads the round from the payload", () => {
        const r = rejected({ round: 2, max_rounds: 3 });
        assert.deepEqual([r.round, r.maxRounds, r.budgetExhausted], [2, 3, false]);
        assert.equal(roundLine(r), "question 2 of 3");
        assert.equal(yoursLine(r), null);
        assert.equal(roundLine(rejected({ round: 4 })), null);
        assert.equal(roundLine(rejected({})), null);
        assert.equal(roundLine(rejected({ round: "2", max_rounds: -1 })), null);
    });

    test("the person sees which question this is", () => {
        const r = rejected({ round: 2, max_rounds: 3 });
        const message = choiceRequest(r.slots[0], "What was revenue?", undefined, r).message;
        assert.match(message, /^This is question 2 of 3 about your question\.$/m);
        assert.doesNotMatch(message, /choice is yours/);
    });

    test("once exhausted, the person is told the choice is theirs, and so is the model", () => {
        const r = rejected({ round: 4, max_rounds: 3, budget_exhausted: true });
        assert.equal(r.budgetExhausted, true);
        const message = choiceRequest(r.slots[0], "What was revenue?", undefined, r).message;
        assert.match(message, /question 4 \(all 3 rounds used\)/);
        assert.match(message, /the choice is yours/);
        const result = textOf(clarificationResult(r, r.slots[0], "q_1"));
        assert.match(result, /question 4 \(all 3 rounds used\)/);
        assert.match(result, /the choice is yours/);
        assert.match(result, /"budget_exhausted": true/);
    });
});
