// The query tool's loop: run the statement under the question's record; when the gate asks,
// settle one slot per round (a meaning the question names, else the person's elicited choice),
// then run again. The model never supplies a binding: the record is built from what was earned.
import type {
    CallToolResult,
    ElicitRequestFormParams,
    ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";

import type { Database } from "./database.js";
import { type AskContext, choiceRequest, NO_CONTEXT, readAnswer } from "./elicitation.js";
import { type Binding, type Question, type QuestionBook, recordFor } from "./questions.js";
import { askingSlot, readRejection, type Rejection, type Slot, slotKey } from "./rejection.js";
import {
    clarificationResult,
    entityResult,
    errorResult,
    meaningsOf,
    otherResult,
    rejectionResult,
    rowsResult,
} from "./results.js";
import { filterResult, filterSlot } from "./segments.js";
import type { Settings } from "./settings.js";
import { requireQuery, StatementError } from "./statement.js";

/** Each round settles one slot; a statement has far fewer governed terms than this. */
const MAX_ROUNDS = 16;

export interface ClientInfo {
    name: string;
    version: string;
    canElicit: boolean;
}

export interface ToolContext {
    db: Database;
    settings: Settings;
    questions: QuestionBook;
    client(): ClientInfo;
    elicit(request: ElicitRequestFormParams): Promise<ElicitResult>;
}

/** A failure that is not the gate's, as one line for the model. */
export function describeError(error: unknown): string {
    if (error instanceof StatementError) return error.message;
    const e = error as { message?: string; code?: string; hint?: string };
    const parts = [e?.message ?? String(error)];
    if (typeof e?.code === "string" && /^[0-9A-Z]{5}$/.test(e.code))
        parts.push(`(SQLSTATE ${e.code})`);
    if (e?.hint) parts.push(`Hint: ${e.hint}`);
    return parts.join(" ");
}

/** `confirmed_by` of an elicited choice: which client asked the person, and how. */
export function confirmedBy(client: ClientInfo): string {
    return `the user, through MCP elicitation in client "${client.name}" ${client.version} (pg-clarify-mcp)`;
}

async function labelsFor(
    ctx: ToolContext,
    decision: Record<string, unknown> | null,
): Promise<Map<string, string>> {
    // The concepts read, and the windows of dated measures.
    const bindings = Array.isArray(decision?.bindings)
        ? (decision.bindings as { concept?: unknown; window?: unknown }[])
        : [];
    const ids = [...new Set(bindings.flatMap((b) => [b.concept, b.window]))].filter(
        (c): c is string => typeof c === "string" && c !== "",
    );
    if (ids.length === 0) return new Map();
    return new Map((await ctx.db.conceptNames(ids)).map((c) => [c.id, c.label]));
}

// Proposes the one option whose label or alias the question names, by the database's word
// match (the Python client uses the same); the gate verifies the claim, a refused one is dropped.
async function namedOption(ctx: ToolContext, slot: Slot, text: string): Promise<string | null> {
    const ids = slot.options.map((o) => o.value);
    // A catalog before 1.2 has no clarify.mentions: nothing is claimed, the person is asked.
    const named = await ctx.db.namedConcepts(text, ids).catch(() => [] as string[]);
    return named.length === 1 ? named[0] : null;
}

function termOf(slot: Slot): string | null {
    return typeof slot.term === "string" && slot.term !== "" ? slot.term : null;
}

/** Drops the claims behind UNVERIFIED slots from `claims`; true when any was dropped. */
function dropUnverified(r: Rejection, claims: Map<string, Binding>, refused: Set<string>): boolean {
    let dropped = false;
    for (const slot of r.slots) {
        const key = slotKey(slot);
        if (slot.state === "UNVERIFIED" && claims.delete(key)) {
            refused.add(key);
            dropped = true;
        }
    }
    return dropped;
}

async function settle(
    ctx: ToolContext,
    question: Question,
    r: Rejection,
    slot: Slot,
    explicit: Map<string, Binding>,
    refused: Set<string>,
): Promise<CallToolResult | null> {
    const key = slotKey(slot);
    const term = termOf(slot);
    const settled = question.confirmed.get(key) ?? explicit.get(key);
    if (settled !== undefined) {
        return rejectionResult(
            r,
            `The meaning of ${term ? `"${term}"` : "this column"} is already settled for this question ` +
                `(${settled.concept}, ${settled.source}); the statement reads another one: ` +
                (slot.kind === "time_range"
                    ? "rewrite it to restrict the time column to exactly that window."
                    : "rewrite it to read the settled meaning."),
        );
    }
    if (!refused.has(key) && slot.kind !== "entity") {
        const named = await namedOption(ctx, slot, question.text);
        if (named !== null) {
            explicit.set(key, { term, concept: named, source: "explicit" });
            return null;
        }
    }
    const client = ctx.client();
    // Without clarify.mentioned_terms (a catalog before 1.2) the person is asked all the same.
    const context: AskContext = await ctx.db.askContext(question.text).catch(() => NO_CONTEXT);
    if (!client.canElicit) return clarificationResult(r, slot, question.id, context);
    let answer;
    try {
        answer = readAnswer(slot, await ctx.elicit(choiceRequest(slot, question.text, context, r)));
    } catch (error) {
        return rejectionResult(
            r,
            `The user could not be asked (${describeError(error)}); nothing was confirmed.`,
        );
    }
    if (answer.kind === "declined") {
        const did = answer.action === "decline" ? "declined" : "cancelled";
        return rejectionResult(
            r,
            `The user ${did} the question; nothing was confirmed and the query did not run.`,
        );
    }
    if (answer.kind === "other") return otherResult(r, slot, answer.text, question.id);
    // Which "Acme": nothing to confirm, the model filters by the chosen key (contract §14).
    if (slot.kind === "entity")
        return entityResult(r, slot, answer.concept, answer.label, question.id);
    let approvalId: string;
    try {
        approvalId = await ctx.db.confirm({
            questionId: question.id,
            question: question.text,
            term,
            concept: answer.concept,
            grantedTo: await ctx.db.grantee(),
            confirmedBy: confirmedBy(client),
            expiresIn: ctx.settings.confirmationTtl,
        });
    } catch (error) {
        return errorResult(
            `The user's choice (${answer.label}) could not be recorded: ${describeError(error)}. ` +
                "Nothing was confirmed and the query did not run.",
        );
    }
    question.confirmed.set(key, { term, concept: answer.concept, source: "user_confirmation" });
    // The agent's pool may be a standby: the re-run must not reach it before the confirmation.
    let replayed: boolean;
    let why = "";
    try {
        replayed = await ctx.db.approvalWait(approvalId, ctx.settings.replayTimeout);
    } catch (error) {
        replayed = false;
        why = ` (${describeError(error)})`;
    }
    if (!replayed) {
        return errorResult(
            `The user's choice (${answer.label}) was recorded, but the agent's database server ` +
                `did not show it within ${ctx.settings.replayTimeout}${why}: it is a replica behind ` +
                "the primary. The query did not run again; call query again to run it with the choice.",
        );
    }
    return null;
}

/** The `query` tool: rows with the meanings used, or why not. */
export async function answerQuery(
    ctx: ToolContext,
    sql: string,
    text: string,
): Promise<CallToolResult> {
    try {
        requireQuery(sql);
        if (text.trim() === "")
            return errorResult("question must be the user's question, in their words");
        const question = ctx.questions.question(text);
        const explicit = new Map<string, Binding>();
        const refused = new Set<string>();
        for (let round = 0; round < MAX_ROUNDS; round++) {
            let rejection: Rejection | null;
            try {
                const out = await ctx.db.query(
                    sql,
                    recordFor(question, explicit.values()),
                    ctx.settings.maxRows,
                );
                const meanings = meaningsOf(out.decision, await labelsFor(ctx, out.decision));
                return rowsResult(question.id, out.columns, out.rows, out.rowCount, meanings);
            } catch (error) {
                rejection = readRejection(error);
                if (rejection === null) throw error;
            }
            if (rejection.sqlstate === "QC004" && dropUnverified(rejection, explicit, refused))
                continue;
            if (
                rejection.sqlstate === "QC004" &&
                dropUnverified(rejection, question.confirmed, new Set())
            ) {
                return rejectionResult(
                    rejection,
                    "A confirmation this question relied on no longer holds (revoked or expired); call query again to ask the user again.",
                );
            }
            const slot = askingSlot(rejection);
            const filter = slot === null ? filterSlot(rejection) : null;
            if (filter !== null) {
                const key = slotKey(filter);
                const settled = question.confirmed.get(key) ?? explicit.get(key);
                return filterResult(rejection, filter, question.id, settled);
            }
            if (slot === null) return rejectionResult(rejection);
            const done = await settle(ctx, question, rejection, slot, explicit, refused);
            if (done !== null) return done;
        }
        return errorResult(
            `the clarification did not settle after ${MAX_ROUNDS} rounds; nothing more was asked`,
        );
    } catch (error) {
        return errorResult(describeError(error));
    }
}

/** The `check` tool: the gate's dry-run decision under the question's confirmed bindings. */
export async function answerCheck(
    ctx: ToolContext,
    sql: string,
    text: string,
): Promise<CallToolResult> {
    try {
        requireQuery(sql);
        if (text.trim() === "")
            return errorResult("question must be the user's question, in their words");
        const question = ctx.questions.question(text);
        const decision = await ctx.db.check(sql, recordFor(question));
        return {
            content: [
                {
                    type: "text",
                    text: JSON.stringify({ question_id: question.id, ...decision }, null, 2),
                },
            ],
            isError: false,
        };
    } catch (error) {
        return errorResult(describeError(error));
    }
}
