#!/usr/bin/env node
// pg-clarify-mcp: the MCP server on stdio. Settings come from the environment (see README.md).
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import { createServer } from "./server.js";
import { readSettings, SettingError } from "./settings.js";

async function main(): Promise<void> {
    let settings;
    try {
        settings = readSettings(process.env);
    } catch (error) {
        if (!(error instanceof SettingError)) throw error;
        process.stderr.write(`pg-clarify-mcp: ${error.message}\n`);
        process.exit(2);
    }
    if (settings.agentUrl === undefined) {
        process.stderr.write(
            "pg-clarify-mcp: PG_CLARIFY_AGENT_URL is not set: every tool will say so\n",
        );
    }
    const clarify = createServer({ settings });
    const stop = async (): Promise<void> => {
        await clarify.close();
        process.exit(0);
    };
    process.on("SIGINT", () => void stop());
    process.on("SIGTERM", () => void stop());
    process.stdin.on("close", () => void stop());
    await clarify.server.connect(new StdioServerTransport());
}

main().catch((error: unknown) => {
    process.stderr.write(
        `pg-clarify-mcp: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
});
