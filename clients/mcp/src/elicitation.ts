// The person's choice, asked through MCP elicitation: one single-choice field of the slot's
// options (label, with its description) plus "Other", and a free-text field for "Other".
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";

import { describeRange } from "./periods.js";
import type { Slot } from "./rejection.js";
import { type Rounds, roundLines } from "./rounds.js";

/** The choice value of "Other": not a concept id (ids never start with a colon). */
export const OTHER = ":other";
export const CHOICE_FIELD = "meaning";
export const OTHER_FIELD = "other";

export type Answer =
    | { kind: "chosen"; concept: string; label: string } // an entity slot's concept is its key
    | { kind: "other"; text: string }
    | { kind: "declined"; action: "decline" | "cancel" };

/** What the person needs beside the slot: their governed words, and the zone periods read in. */
export interface AskContext {
    /** The governed terms the question mentions (clarify.mentioned_terms). */
    mentioned: string[];
    /** The agent session's TimeZone. */
    timeZone: string;
}

export const NO_CONTEXT: AskContext = { mentioned: [], timeZone: "UTC" };

/**
 * An option as the person reads it; a time window with its evaluated period: the gate's `period`
 * (in the window's own zone), else its range read in the session's zone.
 */
export function optionTitle(
    label: string,
    description: string | null | undefined,
    range?: unknown,
    timeZone = "UTC",
    given?: string | null,
): string {
    const period = given || describeRange(range, timeZone);
    const text = description ? `${label} — ${description}` : label;
    return period ? `${text} (${period})` : text;
}

const quoted = (words: string[]): string => {
    const q = words.map((w) => `"${w}"`);
    return q.length === 1 ? q[0] : `${q.slice(0, -1).join(", ")} and ${q[q.length - 1]}`;
};

/** Which of the person's words the question is about; null when the question mentions none. */
export function mentionedLine(term: string | null | undefined, mentioned: string[]): string | null {
    if (mentioned.length === 0) return null;
    const same = (w: string): boolean =>
        w.trim().toLowerCase() === (term ?? "").trim().toLowerCase();
    if (term && mentioned.some(same)) {
        const others = mentioned.filter((w) => !same(w));
        return (
            `This is about "${term}", a word of your question` +
            (others.length > 0 ? ` (it also mentions ${quoted(others)}).` : ".")
        );
    }
    return `Your question mentions ${quoted(mentioned)}.`;
}

function slotQuestion(slot: Slot): string {
    if (slot.question) return slot.question;
    return slot.term ? `When you say "${slot.term}", do you mean:` : "Which meaning do you mean:";
}

/** The most characters of the model's wording of the question the person is shown. */
export const ASKED_SHOWN_MAX = 160;

/**
 * The model's text as one line the person can tell from the database's: control, format (bidi,
 * zero-width) and line-breaking characters become one space, double quotation marks an
 * apostrophe (it is shown quoted), and it is capped at `max` characters.
 */
export function assistantLine(text: string, max = ASKED_SHOWN_MAX): string {
    const flat = text
        .replace(/[\p{Cc}\p{Cf}\p{Z}\s]+/gu, " ")
        .replace(/["\u201c\u201d\u201e\u201f\u00ab\u00bb]/gu, "'")
        .trim();
    const chars = [...flat];
    return chars.length <= max
        ? flat
        : `${chars
              .slice(0, max - 1)
              .join("")
              .trimEnd()}…`;
}

/**
 * The elicitation request for one slot: the gate's question (catalog text) leads; `asked`, the
 * question as the model passed it, follows as one marked line, for context only.
 */
export function choiceRequest(
    slot: Slot,
    asked: string,
    context: AskContext = NO_CONTEXT,
    rounds?: Rounds,
): ElicitRequestFormParams {
    const oneOf = slot.options.map((o) => ({
        const: o.value,
        title: optionTitle(o.label, o.description, o.range, context.timeZone, o.period),
    }));
    oneOf.push({ const: OTHER, title: "Other (describe below)" });
    // The gate's question, the person's words it is about (catalog terms), then the model's text.
    const about = mentionedLine(slot.term, context.mentioned);
    const budget = roundLines(rounds).map((line) => `${line}\n`);
    return {
        mode: "form",
        message:
            `${slotQuestion(slot)}\n${about ? `${about}\n` : ""}${budget.join("")}` +
            `For your question, as the assistant worded it: “${assistantLine(asked)}”`,
        requestedSchema: {
            type: "object",
            properties: {
                [CHOICE_FIELD]: {
                    type: "string",
                    title:
                        slot.kind === "entity"
                            ? `Which ${slot.term ?? "one"}`
                            : slot.term
                              ? `Meaning of "${slot.term}"`
                              : "Meaning",
                    // The business's question: the gate's reason is for the model, not the person.
                    description: slotQuestion(slot),
                    oneOf,
                },
                [OTHER_FIELD]: {
                    type: "string",
                    title: "If Other: what do you mean?",
                    maxLength: 1000,
                },
            },
            required: [CHOICE_FIELD],
        },
    };
}

/** What the person answered; a choice outside the slot's options is refused. */
export function readAnswer(slot: Slot, result: ElicitResult): Answer {
    if (result.action !== "accept") return { kind: "declined", action: result.action };
    const content = result.content ?? {};
    const choice = content[CHOICE_FIELD];
    if (choice === OTHER) {
        const text = typeof content[OTHER_FIELD] === "string" ? content[OTHER_FIELD].trim() : "";
        if (text === "") throw new Error('the person chose "Other" without saying what they mean');
        return { kind: "other", text };
    }
    const option = slot.options.find((o) => o.value === choice);
    if (option === undefined) {
        throw new Error(
            `the client answered with a meaning that was not offered: ${String(choice)}`,
        );
    }
    return { kind: "chosen", concept: option.value, label: option.label };
}
