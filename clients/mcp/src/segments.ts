// Segment slots (contract §15): a segment is a governed filter. The person is asked which one
// like any meaning (label and description, never the predicate); once the term is settled, a
// MISMATCH slot of kind "segment" carries in `expected` the filter the statement must apply, and
// the model is told to apply it: nobody is asked again.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import type { Binding } from "./questions.js";
import type { Rejection, Slot } from "./rejection.js";

/** How a settled segment was settled, for the sentence the model reads. */
const SETTLED_BY: Record<string, string> = {
    user_confirmation: "confirmed by the user",
    explicit: "named in the question",
};

/**
 * Whether the slot asks the model to apply a segment's filter: its `expected` is the predicate
 * text. A segment read against another default or binding names a concept id there instead (one
 * of its options): that one is asked like any meaning.
 */
export function isFilterSlot(slot: Slot): boolean {
    const expected = slot.expected;
    return (
        slot.kind === "segment" &&
        slot.state === "MISMATCH" &&
        typeof expected === "string" &&
        expected.trim() !== "" &&
        !slot.options.some((o) => o.value === expected)
    );
}

/** The first slot, in payload order, that names a filter to apply. */
export function filterSlot(rejection: Rejection): Slot | null {
    return rejection.slots.find(isFilterSlot) ?? null;
}

function labelOf(slot: Slot, id: unknown): string | null {
    if (typeof id !== "string") return null;
    return slot.options.find((o) => o.value === id)?.label ?? id;
}

/**
 * The model's instruction for a filter slot: which segment the term means for this question
 * (`settled`, else the slot's default), the predicate to put in the statement's WHERE, and
 * the other segment it applies instead, if any.
 */
export function filterResult(
    r: Rejection,
    slot: Slot,
    questionId: string,
    settled?: Binding,
): CallToolResult {
    const filter = String(slot.expected);
    const relation = slot.columns?.[0] ?? "the table it filters";
    const term = typeof slot.term === "string" && slot.term !== "" ? slot.term : null;
    const segment = settled?.concept ?? (typeof slot.default === "string" ? slot.default : null);
    const label = labelOf(slot, segment);
    const how = settled ? (SETTLED_BY[settled.source] ?? settled.source) : "the approved default";
    const instead = labelOf(slot, slot.actual);
    const lines = [
        `The database refused the query (${r.state}, SQLSTATE ${r.sqlstate}): ${r.message}`,
        `${term ? `"${term}"` : "The question"} means ${label ?? "a settled segment"} for this ` +
            `question (${how}). Apply this filter to ${relation}: ${filter}`,
        "Rewrite the statement so that its WHERE clause (or an inner join's ON) on " +
            `${relation} includes that condition as written — other conditions may stay — and ` +
            "call query again with the same question." +
            (instead
                ? ` The statement applies ${instead} (${String(slot.actual)}) instead: drop that filter.`
                : ""),
        JSON.stringify(
            {
                status: "apply_filter",
                question_id: questionId,
                term,
                segment,
                label,
                relation,
                filter,
                sqlstate: r.sqlstate,
                state: r.state,
                message: r.message,
                hint: r.hint,
                decision_id: r.decisionId,
                slots: r.slots,
            },
            null,
            2,
        ),
    ];
    return { content: [{ type: "text", text: lines.join("\n") }], isError: true };
}
