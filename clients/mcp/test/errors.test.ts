// Everything that is not a question for the person: gate rejections as tool errors, bad input,
// missing settings, the check tool, the catalog resources, and the server run by its bin.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import {
    admin,
    AGENT,
    approvals,
    choose,
    dropFixture,
    jsonOf,
    loadFixture,
    session,
    textOf,
} from "./helpers.js";

const LEDGER = "SELECT sum(recognized_amount) FROM regress_mcp_sales.revenue_ledger";

describe("tool errors", () => {
    before(loadFixture);
    after(dropFixture);

    test("write statements are refused, and the server keeps serving", async () => {
        const s = await session({ elicit: choose("Recognized revenue") });
        try {
            const cases: [string, RegExp][] = [
                [
                    "INSERT INTO regress_mcp_sales.costs VALUES (9, 1)",
                    /only read-only queries.*starts with INSERT/,
                ],
                ["/* hi */ DELETE FROM regress_mcp_sales.costs", /starts with DELETE/],
                [
                    "WITH d AS (DELETE FROM regress_mcp_sales.costs RETURNING *) SELECT * FROM d",
                    /read-only transaction/,
                ],
                ["SELECT 1; DELETE FROM regress_mcp_sales.costs", /multiple commands/],
                ["SELECT 1; COMMIT", /multiple commands/],
                ["SELEC 1", /only read-only queries/],
                ["SELECT FROM WHERE", /syntax error.*42601/],
                ["   ", /empty/],
            ];
            for (const [sql, message] of cases) {
                const result = await s.call("query", { sql, question: "change the costs" });
                assert.equal(result.isError, true, sql);
                assert.match(textOf(result), message, sql);
            }
            const count = await admin.query(
                "SELECT count(*)::int AS n FROM regress_mcp_sales.costs",
            );
            assert.equal(count.rows[0].n, 1);
            const ok = await s.call("query", { sql: "SELECT 1 AS one", question: "one" });
            assert.equal(ok.isError, false, textOf(ok));
            assert.deepEqual(jsonOf(ok).rows, [[1]]);
            assert.match(textOf(ok), /No governed meaning was read/);
        } finally {
            await s.close();
        }
    });

    test("UNSUPPORTED (QC002): the message, the hint and the slots", async () => {
        const s = await session({ elicit: choose("Gross margin") });
        try {
            const result = await s.call("query", {
                sql: "SELECT sum(margin) FROM regress_mcp_sales.costs",
                question: "mcp margin?",
            });
            assert.equal(result.isError, true);
            const body = jsonOf(result);
            assert.equal(body.sqlstate, "QC002");
            assert.equal(body.state, "UNSUPPORTED");
            assert.ok(typeof body.hint === "string" && body.hint.length > 0);
            assert.equal((body.slots as { term: string }[])[0].term, "mcp margin");
            assert.equal(s.asked.length, 0);
        } finally {
            await s.close();
        }
    });

    test("UNVERIFIED (QC004): a revoked confirmation is reported, then asked again", async () => {
        const s = await session({ elicit: choose("Recognized revenue") });
        try {
            const question = `mcp revenue, to be revoked ${process.pid}`;
            const first = await s.call("query", { sql: LEDGER, question });
            assert.equal(first.isError, false, textOf(first));
            await admin.query(
                "UPDATE clarify.approvals SET revoked_at = now() WHERE question_id = $1",
                [jsonOf(first).question_id],
            );
            const second = await s.call("query", { sql: LEDGER, question });
            assert.equal(second.isError, true);
            assert.equal(jsonOf(second).sqlstate, "QC004");
            assert.match(textOf(second), /no longer holds/);
            const third = await s.call("query", { sql: LEDGER, question });
            assert.equal(third.isError, false, textOf(third));
            assert.equal(s.asked.length, 2);
        } finally {
            await s.close();
        }
    });

    test("missing settings are tool errors naming the variable", async () => {
        const noAgent = await session({ agent: undefined });
        try {
            const result = await noAgent.call("query", { sql: LEDGER, question: "q" });
            assert.equal(result.isError, true);
            assert.match(textOf(result), /PG_CLARIFY_AGENT_URL is not set/);
        } finally {
            await noAgent.close();
        }
        const noConfirmer = await session({
            elicit: choose("Recognized revenue"),
            confirmer: undefined,
        });
        try {
            const question = `mcp revenue without a confirmer ${process.pid}`;
            const result = await noConfirmer.call("query", { sql: LEDGER, question });
            assert.equal(result.isError, true);
            assert.match(textOf(result), /PG_CLARIFY_CONFIRMER_URL is not set/);
        } finally {
            await noConfirmer.close();
        }
    });

    test("check returns the gate's dry-run decision without asking anyone", async () => {
        const s = await session({ elicit: choose("Recognized revenue") });
        try {
            const result = await s.call("check", { sql: LEDGER, question: "mcp revenue, checked" });
            assert.equal(result.isError, false, textOf(result));
            const body = jsonOf(result);
            assert.equal(body.state, "AMBIGUOUS");
            assert.deepEqual(body.mentioned_terms, ["mcp revenue"]);
            assert.equal(s.asked.length, 0);
            assert.deepEqual(await approvals(body.question_id as string), []);
            const refused = await s.call("check", {
                sql: "DROP TABLE regress_mcp_sales.costs",
                question: "x",
            });
            assert.equal(refused.isError, true);
        } finally {
            await s.close();
        }
    });

    test("concepts, terms and defaults are resources; no tool can confirm", async () => {
        const s = await session();
        try {
            const listed = await s.client.listResources();
            assert.deepEqual(listed.resources.map((r) => r.uri).sort(), [
                "clarify://concepts",
                "clarify://defaults",
                "clarify://terms",
            ]);
            const read = await s.client.readResource({ uri: "clarify://concepts" });
            const concepts = JSON.parse((read.contents[0] as { text: string }).text) as {
                id: string;
                label: string;
            }[];
            assert.ok(
                concepts.some(
                    (c) =>
                        c.id === "regress_mcp.recognized_revenue" &&
                        c.label === "Recognized revenue",
                ),
            );
            const tools = await s.client.listTools();
            assert.deepEqual(tools.tools.map((t) => t.name).sort(), ["check", "query"]);
        } finally {
            await s.close();
        }
    });
});

describe("the bin on stdio", () => {
    before(loadFixture);
    after(dropFixture);

    test("runs with one command and answers a clarification", async () => {
        const main = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "main.js");
        const host = process.env.PGHOST ?? "/var/run/postgresql";
        const port = process.env.PGPORT ?? "5432";
        const db = process.env.PGDATABASE ?? "postgres";
        const url = (user: string) =>
            `postgresql://${user}@/${encodeURIComponent(db)}?host=${encodeURIComponent(host)}&port=${port}`;
        const transport = new StdioClientTransport({
            command: process.execPath,
            args: [main],
            env: {
                PATH: process.env.PATH ?? "",
                PG_CLARIFY_AGENT_URL: url(AGENT),
                PG_CLARIFY_CONFIRMER_URL: url("regress_mcp_app"),
            },
            stderr: "pipe",
        });
        const client = new Client(
            { name: "stdio-host", version: "1" },
            { capabilities: { elicitation: {} } },
        );
        const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
        client.setRequestHandler(ElicitRequestSchema, async (request) =>
            choose("Recognized revenue")(request.params as never),
        );
        await client.connect(transport);
        try {
            const result = (await client.callTool({
                name: "query",
                arguments: { sql: LEDGER, question: `mcp revenue over stdio ${process.pid}` },
            })) as CallToolResult;
            assert.equal(result.isError, false, textOf(result));
            assert.deepEqual(jsonOf(result).rows, [["2150.00"]]);
            const rows = await approvals(jsonOf(result).question_id as string);
            assert.match(rows[0].confirmed_by, /"stdio-host" 1 /);
        } finally {
            await client.close();
        }
    });
});

describe("recording the choice", () => {
    before(loadFixture);
    after(dropFixture);

    test("a confirmer that may not confirm: an error, nothing bound, the server keeps serving", async () => {
        const s = await session({
            elicit: choose("Recognized revenue"),
            confirmer: { user: AGENT },
        });
        try {
            const question = `mcp revenue, confirmed by an agent ${process.pid}`;
            const result = await s.call("query", { sql: LEDGER, question });
            assert.equal(result.isError, true);
            assert.match(textOf(result), /could not be recorded/);
            assert.match(textOf(result), /Nothing was confirmed/);
        } finally {
            await s.close();
        }
    });
});
