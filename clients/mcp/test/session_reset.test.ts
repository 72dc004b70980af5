// Nothing the model's statement leaves in its session (locks, settings) outlives the call on
// the pooled connection; the question's record, set in the transaction, still applies per call.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { admin, AGENT, dropFixture, jsonOf, loadFixture, session, textOf } from "./helpers.js";

describe("session state after a query call", () => {
    before(loadFixture);
    after(dropFixture);

    const heldLocks = async (): Promise<number> => {
        const r = await admin.query(
            "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) " +
                "WHERE l.locktype = 'advisory' AND a.usename = $1",
            [AGENT],
        );
        return r.rows[0].n as number;
    };

    test("a session-level advisory lock taken by the statement is released", async () => {
        const s = await session({ agent: { user: AGENT, max: 1 } });
        try {
            for (const sql of [
                "SELECT pg_advisory_lock(1129070930, 4242)",
                "SELECT pg_try_advisory_lock_shared(4243)",
            ]) {
                const result = await s.call("query", { sql, question: "lock it" });
                assert.equal(result.isError, false, textOf(result));
                assert.equal(await heldLocks(), 0, sql);
            }
            const failed = await s.call("query", {
                sql: "SELECT pg_advisory_lock(4244), 1 / (random() * 0)::int",
                question: "lock it, then fail",
            });
            assert.equal(failed.isError, true, textOf(failed));
            assert.equal(await heldLocks(), 0);
        } finally {
            await s.close();
        }
    });

    test("a session-level setting made by the statement does not reach the next call", async () => {
        const s = await session({ agent: { user: AGENT, max: 1 } });
        try {
            const set = await s.call("query", {
                sql: "SELECT pg_catalog.set_config('search_path', 'regress_mcp_sales', false)",
                question: "set it",
            });
            assert.equal(set.isError, false, textOf(set));
            const shown = await s.call("query", {
                sql: "SELECT current_setting('search_path') AS p",
                question: "show it",
            });
            assert.deepEqual(jsonOf(shown).rows, [['"$user", public']], textOf(shown));
        } finally {
            await s.close();
        }
    });

    test("the question's record still applies to each call", async () => {
        const s = await session({ agent: { user: AGENT, max: 1 } });
        try {
            const question = `mcp record ${process.pid}`;
            const first = await s.call("query", {
                sql: "SELECT current_setting('pg_clarify.resolution')::jsonb ->> 'question' AS q",
                question,
            });
            const again = await s.call("query", {
                sql: "SELECT current_setting('pg_clarify.resolution')::jsonb ->> 'question' AS q",
                question,
            });
            for (const r of [first, again])
                assert.deepEqual(jsonOf(r).rows, [[question]], textOf(r));
        } finally {
            await s.close();
        }
    });
});
