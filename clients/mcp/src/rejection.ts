// The gate's rejections (SQLSTATE QC00x) read from a PostgreSQL error: MESSAGE, HINT and the
// DETAIL's JSON payload (docs/reference.md, "SQLSTATEs").
import { positiveInteger } from "./rounds.js";
import { isFilterSlot } from "./segments.js";

export interface Option {
    value: string;
    label: string;
    description?: string | null;
    owner?: string | null;
    /** A time window's evaluated period, `{"start", "end"}` (half-open, ISO timestamps). */
    range?: unknown;
    /** The same period as people read it, in the window's zone ("1 Jul – 30 Sep 2026"). */
    period?: string | null;
}

export interface Slot {
    kind?: string | null;
    term?: string | null;
    state?: string | null;
    reason?: string | null;
    question?: string | null;
    options: Option[];
    columns?: string[];
    expected?: unknown;
    actual?: unknown;
    [key: string]: unknown;
}

export interface Rejection {
    sqlstate: string;
    state: string;
    message: string;
    hint: string | null;
    questionId: string | null;
    decisionId: string | null;
    slots: Slot[];
    /** The question's round (1 for the first), its budget and whether it is spent (src/rounds.ts). */
    round?: number | null;
    maxRounds?: number | null;
    budgetExhausted?: boolean;
}

/** The states whose slots may carry options the person can choose from. */
const ASKING_SQLSTATES = new Set(["QC001", "QC003"]);

interface PgErrorFields {
    code?: string;
    message?: string;
    hint?: string;
    detail?: string;
}

export function isGateSqlstate(code: unknown): code is string {
    return typeof code === "string" && /^QC00[0-9]$/.test(code);
}

function parsePayload(detail: string | undefined): Record<string, unknown> | null {
    if (!detail) return null;
    try {
        const value: unknown = JSON.parse(detail);
        return value !== null && typeof value === "object"
            ? (value as Record<string, unknown>)
            : null;
    } catch {
        // A DETAIL that is not JSON still leaves the message and hint to report.
        return null;
    }
}

function parseSlot(raw: unknown): Slot | null {
    if (raw === null || typeof raw !== "object") return null;
    const slot = raw as Record<string, unknown>;
    const options = Array.isArray(slot.options)
        ? slot.options.filter(
              (o): o is Option =>
                  o !== null &&
                  typeof o === "object" &&
                  typeof (o as Option).value === "string" &&
                  typeof (o as Option).label === "string",
          )
        : [];
    return { ...slot, options } as Slot;
}

/** The gate's rejection carried by `error`, or null when it is another error. */
export function readRejection(error: unknown): Rejection | null {
    const fields = error as PgErrorFields;
    if (error === null || typeof error !== "object" || !isGateSqlstate(fields.code)) return null;
    const payload = parsePayload(fields.detail);
    const slots = Array.isArray(payload?.slots)
        ? (payload.slots as unknown[]).map(parseSlot).filter((s): s is Slot => s !== null)
        : [];
    const text = (key: string): string | null =>
        typeof payload?.[key] === "string" ? (payload[key] as string) : null;
    return {
        sqlstate: fields.code,
        state: text("state") ?? fields.code,
        message: fields.message ?? "the gate rejected the statement",
        hint: fields.hint ?? null,
        questionId: text("question_id"),
        decisionId: text("decision_id"),
        slots,
        round: positiveInteger(payload?.round),
        maxRounds: positiveInteger(payload?.max_rounds),
        budgetExhausted: payload?.budget_exhausted === true,
    };
}

/**
 * The first slot, in payload order, that asks the person to choose among options (a segment's
 * filter to apply is the model's to write: src/segments.ts).
 */
export function askingSlot(rejection: Rejection): Slot | null {
    if (!ASKING_SQLSTATES.has(rejection.sqlstate)) return null;
    return (
        rejection.slots.find(
            (s) =>
                s.options.length > 0 &&
                (s.state === "AMBIGUOUS" || s.state === "MISMATCH") &&
                !isFilterSlot(s),
        ) ?? null
    );
}

/**
 * The key a slot's binding is kept under: its term, or the concept read when it has none. A
 * period is one question per dated measure, whether QC001 asks it (no term) or QC003 (the window's
 * term): keyed by the measure, so the person is not asked for the same period twice.
 */
export function slotKey(slot: Slot): string {
    if (slot.kind === "time_range")
        return `period:${typeof slot.measure === "string" ? slot.measure : ""}`;
    if (typeof slot.term === "string" && slot.term !== "") return `term:${slot.term}`;
    return `concept:${typeof slot.actual === "string" ? slot.actual : ""}`;
}
