// The clarification budget (pg_clarify.max_rounds) as the person reads it: which round of the
// question this is, and, once the budget is spent, that the remaining choice is theirs.
import type { Rejection } from "./rejection.js";

export type Rounds = Pick<Rejection, "round" | "maxRounds" | "budgetExhausted">;

/** A round number from the payload: a positive integer, else null. */
export function positiveInteger(value: unknown): number | null {
    return typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : null;
}

/**
 * "question 2 of 3"; null without a budget (the person is not shown a count without an end) or
 * when the round was not counted. The model's JSON carries the round either way.
 */
export function roundLine(r: Rounds): string | null {
    if (r.round == null || r.maxRounds == null) return null;
    if (r.budgetExhausted) return `question ${r.round} (all ${r.maxRounds} rounds used)`;
    return `question ${r.round} of ${r.maxRounds}`;
}

/** What the person is told once the budget is spent and a meaning is still asked. */
export function yoursLine(r: Rounds): string | null {
    if (!r.budgetExhausted) return null;
    const rounds = r.maxRounds
        ? `all ${r.maxRounds} clarification rounds`
        : "its clarification rounds";
    return (
        `This question has used ${rounds}. What could be assumed was assumed; this meaning ` +
        "matters too much to guess, so the choice is yours."
    );
}

/** The lines the person sees about the budget (none when the round was not counted). */
export function roundLines(r: Rounds | undefined): string[] {
    if (r === undefined) return [];
    const line = roundLine(r);
    const yours = yoursLine(r);
    return [...(line ? [`This is ${line} about your question.`] : []), ...(yours ? [yours] : [])];
}
