// Tool results as the model reads them: one short text line to say what happened, then JSON.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { type AskContext, mentionedLine, NO_CONTEXT } from "./elicitation.js";
import { describeRange } from "./periods.js";
import type { Rejection, Slot } from "./rejection.js";
import { roundLines } from "./rounds.js";

/** How each binding source reads in a sentence ("Recognized revenue, confirmed by the user"). */
const SOURCE_PHRASES: Record<string, string> = {
    user_confirmation: "confirmed by the user",
    approved_default: "the approved default",
    explicit: "named in the question",
    only_eligible: "the only approved meaning",
    assumed: "assumed (low impact)",
};

export interface Meaning {
    concept: string;
    label: string;
    source: string;
    columns: string[];
    /** E.g. "Recognized revenue, confirmed by the user". */
    meaning: string;
}

interface DecisionBinding {
    column?: string;
    concept?: string;
    source?: string;
    /** The time window a dated measure was read for. */
    window?: string;
}

/** The meanings a decision used, one per concept and source, in the decision's order. */
export function meaningsOf(
    decision: Record<string, unknown> | null,
    labels: Map<string, string>,
): Meaning[] {
    const bindings = Array.isArray(decision?.bindings)
        ? (decision.bindings as DecisionBinding[])
        : [];
    const byKey = new Map<string, Meaning>();
    for (const b of bindings) {
        if (typeof b.concept !== "string") continue;
        const source = b.source ?? "unknown";
        const window = typeof b.window === "string" && b.window !== "" ? b.window : null;
        const key = `${b.concept}\u0000${source}\u0000${window ?? ""}`;
        let m = byKey.get(key);
        if (m === undefined) {
            const label = labels.get(b.concept) ?? b.concept;
            m = {
                concept: b.concept,
                label,
                source,
                columns: [],
                meaning:
                    `${label}, ${SOURCE_PHRASES[source] ?? source}` +
                    (window ? `, for ${labels.get(window) ?? window}` : ""),
            };
            byKey.set(key, m);
        }
        if (typeof b.column === "string") m.columns.push(b.column);
    }
    return [...byKey.values()];
}

function json(value: unknown): string {
    return JSON.stringify(value, null, 2);
}

function text(lines: string[], isError: boolean): CallToolResult {
    return { content: [{ type: "text", text: lines.join("\n") }], isError };
}

export function errorResult(message: string): CallToolResult {
    return text([message], true);
}

export function rowsResult(
    questionId: string,
    columns: string[],
    rows: unknown[][],
    rowCount: number,
    meanings: Meaning[],
): CallToolResult {
    const used = meanings.map((m) => m.meaning).join("; ");
    const head =
        `${rowCount} row${rowCount === 1 ? "" : "s"}` +
        (rows.length < rowCount ? ` (the first ${rows.length} are shown)` : "") +
        (used ? `. Meanings used: ${used}.` : ". No governed meaning was read.");
    return text(
        [head, json({ question_id: questionId, columns, rows, row_count: rowCount, meanings })],
        false,
    );
}

function rejectionJson(r: Rejection): Record<string, unknown> {
    return {
        sqlstate: r.sqlstate,
        state: r.state,
        message: r.message,
        hint: r.hint,
        question_id: r.questionId,
        decision_id: r.decisionId,
        slots: r.slots,
        ...(r.round != null ? { round: r.round } : {}),
        ...(r.maxRounds != null ? { max_rounds: r.maxRounds } : {}),
        ...(r.budgetExhausted ? { budget_exhausted: true } : {}),
    };
}

/** A rejection reported to the model: the gate's message, its hint and every slot. */
export function rejectionResult(r: Rejection, note?: string): CallToolResult {
    const lines = [
        `The database refused the query (${r.state}, SQLSTATE ${r.sqlstate}): ${r.message}`,
    ];
    if (r.hint) lines.push(`Hint: ${r.hint}`);
    if (note) lines.push(note);
    lines.push(json(rejectionJson(r)));
    return text(lines, true);
}

function optionLines(slot: Slot, timeZone: string): string[] {
    return slot.options.map((o) => {
        const period = o.period || describeRange(o.range, timeZone);
        const what = `${o.label}${o.description ? `: ${o.description}` : ""}`;
        return `- ${what}${period ? ` (${period})` : ""} (${o.value})`;
    });
}

/** The filter that names one entity by its key: `schema.table.key = 'value'` (SQL literal). */
export function entityFilter(slot: Slot, key: string): string {
    const column = typeof slot.key_column === "string" ? slot.key_column : "the key column";
    const nameColumn = slot.columns?.[0] ?? "";
    const relation = nameColumn.includes(".")
        ? nameColumn.slice(0, nameColumn.lastIndexOf("."))
        : "";
    return `${relation ? `${relation}.` : ""}${column} = '${key.replace(/'/g, "''")}'`;
}

/** The person chose one entity: the model rewrites the statement to filter by its key. */
export function entityResult(
    r: Rejection,
    slot: Slot,
    key: string,
    label: string,
    questionId: string,
): CallToolResult {
    const filter = entityFilter(slot, key);
    const what = slot.term ?? "entity";
    return text(
        [
            `The user means the ${what} ${label} (key ${key}) by "${String(slot.value ?? "")}".`,
            `Rewrite the statement to filter by the key instead of the name — ${filter} — and ` +
                "call query again with the same question. Nothing was confirmed: the key filter needs no confirmation.",
            json({
                status: "entity_chosen",
                question_id: questionId,
                value: slot.value ?? null,
                key,
                label,
                filter,
                ...rejectionJson(r),
            }),
        ],
        true,
    );
}

/** For a client without elicitation: the question for the person, and who may answer it. */
export function clarificationResult(
    r: Rejection,
    slot: Slot,
    questionId: string,
    context: AskContext = NO_CONTEXT,
): CallToolResult {
    const about = mentionedLine(slot.term, context.mentioned);
    if (slot.kind === "entity") {
        return text(
            [
                `The query names ${slot.term ?? "an entity"} "${String(slot.value ?? "")}", which matches several (${r.state}, question id ${questionId}).`,
                `Ask the user: ${slot.question ?? r.hint ?? "Which one do you mean?"}`,
                ...slot.options.map((o) => `- ${o.label} (filter: ${entityFilter(slot, o.value)})`),
                ...(slot.truncated === true
                    ? ["More match than these; ask for a detail if none is right."]
                    : []),
                "Then rewrite the statement with the chosen filter instead of the name and call query again.",
                json({
                    status: "awaiting_clarification",
                    ...rejectionJson(r),
                    question_id: questionId,
                }),
            ],
            true,
        );
    }
    return text(
        [
            `The query needs the user to choose a meaning before it can run (${r.state}, question id ${questionId}).`,
            `Ask the user: ${slot.question ?? r.hint ?? "Which meaning do you mean?"}`,
            ...(about ? [about] : []),
            ...roundLines(r),
            ...optionLines(slot, context.timeZone),
            "The user's choice must be recorded by the application, as the confirmer role with " +
                "clarify.confirm(), never by the model: this client cannot show MCP elicitation forms, " +
                "so the server cannot ask the user itself, and no tool of this server records a choice. " +
                "Once the application has recorded it, call query again with the same question.",
            json({
                status: "awaiting_clarification",
                ...rejectionJson(r),
                question_id: questionId,
                mentioned_terms: context.mentioned,
            }),
        ],
        true,
    );
}

/** The person chose "Other": their words go back to the model; nothing was confirmed. */
export function otherResult(
    r: Rejection,
    slot: Slot,
    words: string,
    questionId: string,
): CallToolResult {
    const term = slot.term ? `"${slot.term}"` : "this meaning";
    return text(
        [
            `The user chose none of the offered meanings for ${term} and said: "${words}".`,
            "Nothing was confirmed and the query did not run. None of the approved meanings matches " +
                "what the user wants: tell them so, or ask the question again in their words.",
            json({
                status: "not_confirmed",
                answer: words,
                ...rejectionJson(r),
                question_id: questionId,
            }),
        ],
        true,
    );
}
