// The person's choice, asked through MCP elicitation: one single-choice field of the slot's
// options (label, with its description) plus "Other", and a free-text field for "Other".
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";

import type { Slot } from "./rejection.js";

/** The choice value of "Other": not a concept id (ids never start with a colon). */
export const OTHER = ":other";
export const CHOICE_FIELD = "meaning";
export const OTHER_FIELD = "other";

export type Answer =
    | { kind: "chosen"; concept: string; label: string }
    | { kind: "other"; text: string }
    | { kind: "declined"; action: "decline" | "cancel" };

function optionTitle(label: string, description: string | null | undefined): string {
    return description ? `${label} — ${description}` : label;
}

function slotQuestion(slot: Slot): string {
    if (slot.question) return slot.question;
    return slot.term ? `When you say "${slot.term}", do you mean:` : "Which meaning do you mean:";
}

/** The elicitation request for one slot; `asked` is the person's question, shown for context. */
export function choiceRequest(slot: Slot, asked: string): ElicitRequestFormParams {
    const oneOf = slot.options.map((o) => ({
        const: o.value,
        title: optionTitle(o.label, o.description),
    }));
    oneOf.push({ const: OTHER, title: "Other (describe below)" });
    return {
        mode: "form",
        message: `To answer "${asked}", the database needs to know what you mean. ${slotQuestion(slot)}`,
        requestedSchema: {
            type: "object",
            properties: {
                [CHOICE_FIELD]: {
                    type: "string",
                    title: slot.term ? `Meaning of "${slot.term}"` : "Meaning",
                    description: slot.reason ?? undefined,
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
        const text = content[OTHER_FIELD];
        return { kind: "other", text: typeof text === "string" ? text.trim() : "" };
    }
    const option = slot.options.find((o) => o.value === choice);
    if (option === undefined) {
        throw new Error(
            `the client answered with a meaning that was not offered: ${String(choice)}`,
        );
    }
    return { kind: "chosen", concept: option.value, label: option.label };
}
