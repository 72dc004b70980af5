// The MCP server: two tools (query, check) and the catalog the agent may read as resources.
// No tool records a confirmation: only an elicited answer from the person does.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

import { answerCheck, answerQuery, type ToolContext } from "./clarification.js";
import { Database } from "./database.js";
import { QuestionBook } from "./questions.js";
import type { Settings } from "./settings.js";

export const SERVER_NAME = "pg-clarify-mcp";
export const SERVER_VERSION = "0.1.0";

export interface ServerOptions {
    settings: Settings;
    /** Overrides settings.agentUrl / confirmerUrl with pg pool settings (tests, embedding). */
    agent?: ConstructorParameters<typeof Database>[0];
    confirmer?: ConstructorParameters<typeof Database>[1];
}

const CATALOG = {
    concepts:
        "Business meanings: id, kind, label, description, owner, status, availability, version, aliases, validity.",
    terms: "Business terms and the concepts each may mean.",
    defaults: "Approved defaults: the concept a term means unless the user chose otherwise.",
} as const;

const TOOL_INPUT = {
    sql: z.string().describe("One read-only query (SELECT, WITH, VALUES or TABLE)."),
    question: z
        .string()
        .describe(
            "The user's question, in their words. Keep the same text for every call about that question.",
        ),
};

export interface ClarifyServer {
    server: McpServer;
    close(): Promise<void>;
}

export function createServer(options: ServerOptions): ClarifyServer {
    const { settings } = options;
    const db = new Database(
        options.agent ?? settings.agentUrl,
        options.confirmer ?? settings.confirmerUrl,
    );
    const server = new McpServer(
        { name: SERVER_NAME, version: SERVER_VERSION },
        { capabilities: { tools: {}, resources: {} } },
    );
    const ctx: ToolContext = {
        db,
        settings,
        questions: new QuestionBook(),
        client: () => {
            const info = server.server.getClientVersion();
            return {
                name: info?.name ?? "unknown client",
                version: info?.version ?? "",
                canElicit: server.server.getClientCapabilities()?.elicitation?.form !== undefined,
            };
        },
        elicit: (request) =>
            server.server.elicitInput(request, { timeout: settings.elicitationTimeoutMs }),
    };

    server.registerTool(
        "query",
        {
            title: "Run a governed query",
            description:
                "Runs one read-only SQL query for the user's question. When a column's business meaning is " +
                "ambiguous, the user is asked to choose (through the client's elicitation) and the query " +
                "runs with the confirmed meaning; the result names the meanings used.",
            inputSchema: TOOL_INPUT,
            annotations: { readOnlyHint: true, openWorldHint: false },
        },
        ({ sql, question }) => answerQuery(ctx, sql, question),
    );

    server.registerTool(
        "check",
        {
            title: "Dry-run the clarification gate",
            description:
                "Returns what the gate would decide for the query under this question's confirmed meanings, without running it or asking anyone.",
            inputSchema: TOOL_INPUT,
            annotations: { readOnlyHint: true, openWorldHint: false },
        },
        ({ sql, question }) => answerCheck(ctx, sql, question),
    );

    for (const [table, description] of Object.entries(CATALOG) as [
        keyof typeof CATALOG,
        string,
    ][]) {
        server.registerResource(
            table,
            `clarify://${table}`,
            { title: `clarify.${table}`, description, mimeType: "application/json" },
            async (uri) => ({
                contents: [
                    {
                        uri: uri.href,
                        mimeType: "application/json",
                        text: JSON.stringify(await db.catalogRows(table), null, 2),
                    },
                ],
            }),
        );
    }

    return {
        server,
        close: async () => {
            await server.close();
            await db.close();
        },
    };
}
