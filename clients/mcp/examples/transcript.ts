// Prints one clarification as an MCP host sees it: the server is started by its bin on stdio,
// the scripted "person" picks the option whose label is PICK (default "Booked revenue").
// Needs PG_CLARIFY_AGENT_URL and PG_CLARIFY_CONFIRMER_URL (see README.md).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
    type CallToolResult,
    type ElicitRequestFormParams,
    ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const pick = process.env.PICK ?? "Booked revenue";
const sql =
    process.env.SQL ??
    "SELECT customer_country, sum(booked_amount) AS revenue FROM sales.orders " +
        "GROUP BY 1 ORDER BY 2 DESC LIMIT 3";
const question = process.env.QUESTION ?? "Which countries brought the most revenue?";

function show(who: string, value: unknown): void {
    process.stdout.write(`${who}\n${JSON.stringify(value, null, 2)}\n\n`);
}

const main = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "main.js");
const client = new Client(
    { name: "transcript-host", version: "1.0" },
    { capabilities: { elicitation: {} } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as ElicitRequestFormParams;
    show("server -> client: elicitation/create", params);
    const field = params.requestedSchema.properties.meaning as {
        oneOf: { const: string; title: string }[];
    };
    const option = field.oneOf.find((o) => o.title.startsWith(pick));
    const answer = { action: "accept" as const, content: { meaning: option?.const ?? ":other" } };
    show(`client -> server: the person picks "${pick}"`, answer);
    return answer;
});
await client.connect(
    new StdioClientTransport({
        command: process.execPath,
        args: [main],
        env: { ...process.env } as Record<string, string>,
    }),
);
const call = { name: "query", arguments: { sql, question } };
show("client -> server: tools/call", call);
const result = (await client.callTool(call)) as CallToolResult;
const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
process.stdout.write(`server -> client: result (isError: ${String(result.isError)})\n${text}\n`);
await client.close();
