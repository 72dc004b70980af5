// replica_loop.t's MCP part: the server's Database with the agent pool on the standby and the
// confirmer's on the primary. Prints "ok<TAB>name" or "not ok<TAB>name<TAB>detail" per check.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const mcp = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "clients", "mcp");
const pg = createRequire(join(mcp, "package.json"))("pg");
const { Database } = await import(join(mcp, "dist", "src", "database.js"));

const AGENT = "regress_rl_agent";
const QUESTION = "What was our revenue?";
const SQL = "SELECT sum(booked_amount) FROM rl.orders";
const server = (host, port, user) => ({ host, port: Number(port), user, database: "postgres" });
const env = process.env;
const primary = new pg.Client(server(env.PRIMARY_HOST, env.PRIMARY_PORT, "postgres"));
const standby = new pg.Client(server(env.STANDBY_HOST, env.STANDBY_PORT, "postgres"));
const db = new Database(
    server(env.STANDBY_HOST, env.STANDBY_PORT, AGENT),
    server(env.PRIMARY_HOST, env.PRIMARY_PORT, "regress_rl_app"),
);

const report = (ok, name, detail = "") =>
    console.log([ok ? "ok" : "not ok", name, String(detail).replace(/\s+/g, " ")].join("\t"));
const check = (name, got, expected) =>
    report(got === expected, name, `expected ${expected}, got ${got}`);
async function poll(what, condition) {
    for (let i = 0; i < 3000; i++) {
        if (await condition()) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`timed out waiting for ${what}`);
}
const value = async (client, sql, args = []) => Object.values((await client.query(sql, args)).rows[0])[0];

try {
    await primary.connect();
    await standby.connect();
    await standby.query("SELECT pg_wal_replay_pause()");
    await poll("the pause", async () =>
        (await value(standby, "SELECT pg_get_wal_replay_pause_state()")) === "paused");
    const questionId = `q_rl_mcp_${process.pid}`;
    const id = await db.confirm({
        questionId, question: QUESTION, term: "rl revenue", concept: "metric.rl_booked",
        grantedTo: AGENT, confirmedBy: "replica_loop_mcp", expiresIn: "1 hour",
    });
    check("MCP: replay paused, the wait says false at its timeout", await db.approvalWait(id, "0 s"), false);
    const waiting = db.approvalWait(id, "1 min");
    await poll("the replay wait", async () => (await value(standby,
        "SELECT count(*)::int FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Extension'",
        [AGENT])) === 1);
    await standby.query("SELECT pg_wal_replay_resume()");
    check("MCP: the wait returns true once the standby replays the confirmation", await waiting, true);
    const record = JSON.stringify({ question_id: questionId, question: QUESTION, bindings: [
        { term: "rl revenue", concept: "metric.rl_booked", source: "user_confirmation" }] });
    check("MCP: the re-run's check on the standby verifies the confirmation",
        (await db.check(SQL, record)).decision, "allowed");
} catch (error) {
    report(false, "the MCP replica checks ran to their end", error?.stack ?? error);
} finally {
    await db.close();
    await primary.end().catch(() => undefined);
    await standby.end().catch(() => undefined);
}
