// Entity slots (contract §14), without a database: the person picks one of the entities named
// alike, and the model gets back the key and the filter to use instead of the name.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { choiceRequest, readAnswer } from "../src/elicitation.js";
import type { Rejection, Slot } from "../src/rejection.js";
import { clarificationResult, entityFilter, entityResult } from "../src/results.js";

const slot: Slot = {
    kind: "entity",
    term: "Customer",
    state: "AMBIGUOUS",
    value: "Acme Corp",
    key_column: "id",
    truncated: false,
    question: 'Which Customer do you mean by "Acme Corp"?',
    columns: ["crm.customers.name"],
    options: [
        { value: "1", label: "Acme Corp (Berlin)" },
        { value: "2", label: "Acme Corp (Paris)" },
    ],
};
const rejection: Rejection = {
    sqlstate: "QC001",
    state: "AMBIGUOUS",
    message: 'the Customer named "Acme Corp" is ambiguous',
    hint: null,
    questionId: "q_1",
    decisionId: "7",
    slots: [slot],
};
const textOf = (r: { content: unknown[] }): string =>
    (r.content as { text: string }[]).map((c) => c.text).join("\n");

describe("an entity slot", () => {
    test("is asked as which one, its options the keys", () => {
        const field = choiceRequest(slot, "Show revenue for Acme").requestedSchema.properties
            .meaning as { title?: string; oneOf: { const: string; title: string }[] };
        assert.equal(field.title, "Which Customer");
        assert.deepEqual(
            field.oneOf.map((o) => o.const),
            ["1", "2", ":other"],
        );
        const answer = readAnswer(slot, { action: "accept", content: { meaning: "2" } });
        assert.deepEqual(answer, { kind: "chosen", concept: "2", label: "Acme Corp (Paris)" });
    });

    test("hands the chosen key back with the filter to use", () => {
        assert.equal(entityFilter(slot, "2"), "crm.customers.id = '2'");
        assert.equal(entityFilter(slot, "O'Brien"), "crm.customers.id = 'O''Brien'");
        const out = textOf(entityResult(rejection, slot, "2", "Acme Corp (Paris)", "q_1"));
        assert.match(out, /filter by the key instead of the name — crm\.customers\.id = '2'/);
        assert.match(out, /"status": "entity_chosen"/);
        assert.match(out, /"key": "2"/);
    });

    test("without elicitation, lists each option with its filter", () => {
        const out = textOf(clarificationResult(rejection, slot, "q_1"));
        assert.match(out, /Ask the user: Which Customer do you mean by "Acme Corp"\?/);
        assert.match(out, /- Acme Corp \(Berlin\) \(filter: crm\.customers\.id = '1'\)/);
        assert.doesNotMatch(out, /clarify\.confirm/);
    });
});
