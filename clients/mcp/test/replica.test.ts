// The query tool's re-run after a confirmation waits until the agent's server shows it (no
// server needed: a fake database). With the agent on a standby, a re-run that did not wait would
// race replication and be refused as UNVERIFIED.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";

import { answerQuery, type ToolContext } from "../src/clarification.js";
import type { Database } from "../src/database.js";
import { CHOICE_FIELD } from "../src/elicitation.js";
import { QuestionBook } from "../src/questions.js";
import { readSettings } from "../src/settings.js";

const AMBIGUOUS = Object.assign(new Error("the meaning of revenue is ambiguous"), {
    code: "QC001",
    detail: JSON.stringify({
        state: "AMBIGUOUS",
        question_id: "q",
        slots: [
            {
                kind: "metric",
                term: "revenue",
                state: "AMBIGUOUS",
                options: [
                    { value: "metric.booked", label: "Booked revenue" },
                    { value: "metric.recognized", label: "Recognized revenue" },
                ],
            },
        ],
    }),
});

/** Records the calls in order; the agent's server answers the wait with `replayed`. */
function fakeContext(replayed: boolean | Error, env: NodeJS.ProcessEnv = {}) {
    const calls: string[] = [];
    let queries = 0;
    const db = {
        query: async () => {
            calls.push("query");
            if (queries++ === 0) throw AMBIGUOUS;
            return { columns: ["sum"], rows: [[42]], rowCount: 1, decision: null };
        },
        conceptNames: async () => [],
        namedConcepts: async () => [],
        askContext: async () => ({ mentioned: ["revenue"], timeZone: "UTC" }),
        grantee: async () => "agent",
        confirm: async () => {
            calls.push("confirm");
            return "7";
        },
        approvalWait: async (id: string, timeout: string) => {
            calls.push(`approvalWait ${id} ${timeout}`);
            if (replayed instanceof Error) throw replayed;
            return replayed;
        },
    };
    const ctx: ToolContext = {
        db: db as unknown as Database,
        settings: readSettings(env),
        questions: new QuestionBook(),
        client: () => ({ name: "fake-host", version: "1", canElicit: true }),
        elicit: async (): Promise<ElicitResult> => ({
            action: "accept",
            content: { [CHOICE_FIELD]: "metric.booked" },
        }),
    };
    return { ctx, calls };
}

const SQL = "SELECT sum(booked_amount) FROM sales.orders";

describe("the re-run after a confirmation", () => {
    test("waits until the agent's server shows the confirmation, then runs", async () => {
        const { ctx, calls } = fakeContext(true, { PG_CLARIFY_REPLAY_TIMEOUT: "30 s" });
        const result = await answerQuery(ctx, SQL, "What was revenue?");
        assert.notEqual(result.isError, true);
        assert.deepEqual(calls, ["query", "confirm", "approvalWait 7 30 s", "query"]);
    });

    test("the wait defaults to 5 s", async () => {
        const { ctx, calls } = fakeContext(true);
        await answerQuery(ctx, SQL, "What was revenue?");
        assert.ok(calls.includes("approvalWait 7 5 s"));
    });

    test("not shown in time: no re-run, the choice is kept and the error says why", async () => {
        const { ctx, calls } = fakeContext(false);
        const result = await answerQuery(ctx, SQL, "What was revenue?");
        assert.equal(result.isError, true);
        const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
        assert.match(text, /Booked revenue\) was recorded/);
        assert.match(text, /replica/);
        assert.deepEqual(calls, ["query", "confirm", "approvalWait 7 5 s"]);
        // Called again, the question's confirmation is reused: nothing is asked or confirmed again.
        await answerQuery(ctx, SQL, "What was revenue?");
        assert.deepEqual(calls.slice(3), ["query"]);
    });

    test("a failed wait is reported like a timeout, with its reason", async () => {
        const { ctx, calls } = fakeContext(new Error("connection refused"));
        const result = await answerQuery(ctx, SQL, "What was revenue?");
        assert.equal(result.isError, true);
        const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
        assert.match(text, /connection refused/);
        assert.equal(calls.filter((c) => c === "query").length, 1);
    });
});
