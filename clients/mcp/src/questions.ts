// One question id per question, kept across the rounds of its clarification, with the bindings
// the person's confirmations earned for it. The record the agent sets is built from here only.
import { randomUUID } from "node:crypto";

export type BindingSource = "user_confirmation" | "explicit";

export interface Binding {
    term: string | null;
    concept: string;
    source: BindingSource;
}

export interface Question {
    readonly id: string;
    readonly text: string;
    /** Bindings earned by confirmations, keyed by slot (term, or concept read without a term). */
    readonly confirmed: Map<string, Binding>;
}

/** The resolution record (docs/reference.md) for `question` plus call-local `extra` bindings. */
export function recordFor(question: Question, extra: Iterable<Binding> = []): string {
    const bindings = [...question.confirmed.values(), ...extra].map((b) =>
        b.term === null
            ? { concept: b.concept, source: b.source }
            : { term: b.term, concept: b.concept, source: b.source },
    );
    return JSON.stringify({ question_id: question.id, question: question.text, bindings });
}

/** Questions remembered per server; the oldest is forgotten first (its approvals stay valid). */
export const QUESTIONS_KEPT = 1000;

export class QuestionBook {
    private readonly questions = new Map<string, Question>();

    constructor(private readonly kept = QUESTIONS_KEPT) {}

    /** The question asked with `text` (surrounding white space aside), created on first use. */
    question(text: string): Question {
        const key = text.trim();
        let found = this.questions.get(key);
        if (found === undefined) {
            found = {
                id: `q_mcp_${randomUUID().replace(/-/g, "").slice(0, 16)}`,
                text: key,
                confirmed: new Map(),
            };
            this.questions.set(key, found);
            if (this.questions.size > this.kept) {
                this.questions.delete(this.questions.keys().next().value as string);
            }
        }
        return found;
    }
}
