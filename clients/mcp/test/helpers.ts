// Test harness: the SDK's own Client talks to the server over an in-memory transport; the
// database is the one of the libpq environment (PGHOST, PGPORT, PGDATABASE; PGUSER a superuser).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
    type CallToolResult,
    type ElicitRequestFormParams,
    ElicitRequestSchema,
    type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";

import { createServer } from "../src/server.js";
import { readSettings } from "../src/settings.js";

export const AGENT = "regress_mcp_agent";
export const CONFIRMER = "regress_mcp_app";
export const CLIENT_NAME = "regress-mcp-host";

// Sources sit in test/; the compiled tests run from dist/test/.
const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test");

export function sqlFile(name: string): string {
    return readFileSync(join(SOURCE_DIR, name), "utf8");
}

// Idle connections close on their own, so each test file's process ends when its tests do.
export const admin = new pg.Pool({ max: 2, idleTimeoutMillis: 200, allowExitOnIdle: true });

export async function loadFixture(): Promise<void> {
    await admin.query(sqlFile("fixture.sql"));
}

export async function dropFixture(): Promise<void> {
    await admin.query(sqlFile("cleanup.sql"));
}

export interface Approval {
    term: string | null;
    concept_id: string;
    confirmed_by: string;
    granted_to: string;
}

export async function approvals(questionId: string): Promise<Approval[]> {
    const r = await admin.query(
        "SELECT term, concept_id, confirmed_by, granted_to::text FROM clarify.approvals WHERE question_id = $1 ORDER BY id",
        [questionId],
    );
    return r.rows as Approval[];
}

export type Elicit = (request: ElicitRequestFormParams) => ElicitResult | Promise<ElicitResult>;

export interface Session {
    client: Client;
    /** Every elicitation the server sent, in order. */
    asked: ElicitRequestFormParams[];
    call(tool: string, args: Record<string, unknown>): Promise<CallToolResult>;
    close(): Promise<void>;
}

export interface SessionOptions {
    /** Answers elicitations; without it the client does not declare the capability. */
    elicit?: Elicit;
    agent?: pg.PoolConfig;
    confirmer?: pg.PoolConfig;
    env?: NodeJS.ProcessEnv;
}

export async function session(options: SessionOptions = {}): Promise<Session> {
    const clarify = createServer({
        settings: readSettings(options.env ?? {}),
        agent: "agent" in options ? options.agent : { user: AGENT },
        confirmer: "confirmer" in options ? options.confirmer : { user: CONFIRMER },
    });
    const client = new Client(
        { name: CLIENT_NAME, version: "9.9" },
        { capabilities: options.elicit ? { elicitation: {} } : {} },
    );
    const asked: ElicitRequestFormParams[] = [];
    if (options.elicit) {
        const answer = options.elicit;
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
            const params = request.params as ElicitRequestFormParams;
            asked.push(params);
            return answer(params);
        });
    }
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await clarify.server.connect(serverSide);
    await client.connect(clientSide);
    return {
        client,
        asked,
        call: async (name, args) =>
            (await client.callTool({ name, arguments: args })) as CallToolResult,
        close: async () => {
            await client.close();
            await clarify.close();
        },
    };
}

/** The tool result's text. */
export function textOf(result: CallToolResult): string {
    return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

/** The JSON document that ends the tool result's text. */
export function jsonOf(result: CallToolResult): Record<string, unknown> {
    const text = textOf(result);
    return JSON.parse(text.slice(text.indexOf("\n{") + 1)) as Record<string, unknown>;
}

/** An elicitation answer that picks the option whose title starts with `label`. */
export function choose(label: string): Elicit {
    return (request) => {
        const field = request.requestedSchema.properties.meaning as {
            oneOf: { const: string; title: string }[];
        };
        const option = field.oneOf.find((o) => o.title.startsWith(label));
        if (option === undefined) throw new Error(`no option ${label}`);
        return { action: "accept", content: { meaning: option.const } };
    };
}
