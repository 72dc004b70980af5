// The two connections: the agent role runs every query and check inside a read-only transaction
// with the question's record set locally, its session reset after; the confirmer role only
// records elicited choices.
import pg from "pg";

import { SettingError } from "./settings.js";

export interface ConceptNames {
    id: string;
    label: string;
    aliases: string[];
}

export interface QueryOutcome {
    columns: string[];
    rows: unknown[][];
    rowCount: number;
    /** The gate's decision for this statement, or null when it read no governed column. */
    decision: Record<string, unknown> | null;
}

export interface Confirmation {
    questionId: string;
    question: string;
    term: string | null;
    concept: string;
    grantedTo: string;
    confirmedBy: string;
    expiresIn: string;
}

type PoolSource = pg.PoolConfig | string | undefined;

interface LazyPool {
    get: () => pg.Pool;
    end: () => Promise<void>;
}

function poolFor(source: PoolSource, variable: string): LazyPool {
    let pool: pg.Pool | undefined;
    return {
        get: () => {
            if (source === undefined) throw new SettingError(`${variable} is not set`);
            if (pool === undefined) {
                pool = new pg.Pool(
                    typeof source === "string"
                        ? { connectionString: source, max: 4 }
                        : { max: 4, ...source },
                );
                // An idle connection that drops must not take the server down with it.
                pool.on("error", () => undefined);
            }
            return pool;
        },
        end: async () => {
            await pool?.end().catch(() => undefined);
            pool = undefined;
        },
    };
}

export class Database {
    private readonly agentPool: LazyPool;
    private readonly confirmerPool: LazyPool;
    private agentRole: string | undefined;

    constructor(agent: PoolSource, confirmer: PoolSource) {
        this.agentPool = poolFor(agent, "PG_CLARIFY_AGENT_URL");
        this.confirmerPool = poolFor(confirmer, "PG_CLARIFY_CONFIRMER_URL");
    }

    private agent(): pg.Pool {
        return this.agentPool.get();
    }

    /** Runs `body` in a read-only transaction of the agent with `record` set for it alone. */
    private async asAgent<T>(
        record: string,
        body: (client: pg.PoolClient) => Promise<T>,
    ): Promise<T> {
        const client = await this.agent().connect();
        try {
            await client.query("BEGIN READ ONLY");
            try {
                await client.query(
                    "SELECT pg_catalog.set_config('pg_clarify.resolution', $1, true)",
                    [record],
                );
                const result = await body(client);
                await client.query("COMMIT");
                return result;
            } catch (error) {
                await client.query("ROLLBACK").catch(() => undefined);
                throw error;
            }
        } finally {
            // Nothing the statement left in the session (a session-level advisory lock, a setting
            // made with set_config(..., false)) outlives the call on the pooled connection; the
            // record was set locally, in the transaction. No named statements are lost: none is
            // prepared. A connection that cannot be reset is closed rather than reused.
            const reset = await client.query("DISCARD ALL").then(
                () => undefined,
                (error: Error) => error,
            );
            client.release(reset);
        }
    }

    /** Runs the agent's statement; the gate's rejection surfaces as the pg error it raised. */
    async query(sql: string, record: string, maxRows: number): Promise<QueryOutcome> {
        return this.asAgent(record, async (client) => {
            const lastId = async (): Promise<Record<string, unknown> | null> => {
                const r = await client.query("SELECT clarify.last_decision() AS d");
                return (r.rows[0]?.d as Record<string, unknown> | null) ?? null;
            };
            const before = await lastId();
            // The extended protocol accepts exactly one statement: nothing can end the transaction.
            const config = {
                text: sql,
                rowMode: "array",
                queryMode: "extended",
            } as pg.QueryArrayConfig;
            const result = await client.query(config);
            const after = await lastId();
            const decided =
                after !== null &&
                after.decision_id !== undefined &&
                after.decision_id !== before?.decision_id;
            const all = (result.rows ?? []) as unknown[][];
            return {
                columns: (result.fields ?? []).map((f) => f.name),
                rows: all.slice(0, maxRows),
                rowCount: all.length,
                decision: decided ? after : null,
            };
        });
    }

    /** The gate's dry-run decision for `sql` under `record` (clarify.check). */
    /** The gate's dry run, with the governed terms the record's question mentions: they decide. */
    async check(sql: string, record: string): Promise<Record<string, unknown>> {
        return this.asAgent(record, async (client) => {
            const r = await client.query(
                "SELECT clarify.check($1) AS c, ARRAY(SELECT clarify.mentioned_terms(" +
                    "current_setting('pg_clarify.resolution')::jsonb ->> 'question')) AS m",
                [sql],
            );
            return { ...(r.rows[0].c as Record<string, unknown>), mentioned_terms: r.rows[0].m };
        });
    }

    /** The governed terms `question` mentions, and the agent session's time zone. */
    async askContext(question: string): Promise<{ mentioned: string[]; timeZone: string }> {
        const r = await this.agent().query(
            "SELECT ARRAY(SELECT clarify.mentioned_terms($1)) AS m, current_setting('TimeZone') AS tz",
            [question],
        );
        return { mentioned: r.rows[0].m as string[], timeZone: r.rows[0].tz as string };
    }

    /**
     * Which of `ids` the question names by label or alias, matched by the database as the gate
     * matches words (clarify.mentions), so no client keeps a rule of its own.
     */
    async namedConcepts(question: string, ids: string[]): Promise<string[]> {
        const r = await this.agent().query(
            "SELECT c.id FROM clarify.concepts AS c WHERE c.id = ANY($1) AND EXISTS (" +
                "SELECT FROM pg_catalog.unnest(pg_catalog.array_prepend(c.label, coalesce(c.aliases, '{}'))) AS n " +
                "WHERE clarify.mentions($2, n)) ORDER BY c.id",
            [ids, question],
        );
        return r.rows.map((row: { id: string }) => row.id);
    }

    /** Labels and aliases of the given concepts, as the agent may read them. */
    async conceptNames(ids: string[]): Promise<ConceptNames[]> {
        // A fixed unit follows the label, as the gate writes it (CONTRACT.md §16); read through
        // to_jsonb so that a catalog before 1.2 (no unit column) answers too.
        const r = await this.agent().query(
            "SELECT id, label || coalesce(' (' || (to_jsonb(c) ->> 'unit') || ')', '') AS label, " +
                "coalesce(aliases, '{}') AS aliases FROM clarify.concepts c WHERE id = ANY($1)",
            [ids],
        );
        return r.rows as ConceptNames[];
    }

    /** A catalog table the agent may read, as JSON rows (concepts, terms, defaults). */
    async catalogRows(table: "concepts" | "terms" | "defaults"): Promise<unknown[]> {
        const order = table === "concepts" ? "id" : "term, concept_id";
        const r = await this.agent().query(
            `SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY ${order}), '[]') AS rows FROM clarify.${table} t`,
        );
        return r.rows[0].rows as unknown[];
    }

    /** The role the agent logs in as: confirmations are granted to it. */
    async grantee(): Promise<string> {
        if (this.agentRole === undefined) {
            const r = await this.agent().query("SELECT session_user::text AS role");
            this.agentRole = r.rows[0].role as string;
        }
        return this.agentRole;
    }

    /** Records the person's choice as the confirmer; returns the approval id. */
    async confirm(c: Confirmation): Promise<string> {
        const pool = this.confirmerPool.get();
        const args = [c.questionId, c.term, c.concept, c.grantedTo, c.confirmedBy, c.expiresIn];
        const call =
            "SELECT clarify.confirm($1, $2, $3, $4::pg_catalog.regrole, $5, $6::pg_catalog.interval";
        try {
            const r = await pool.query(`${call}, question => $7) AS id`, [...args, c.question]);
            return String(r.rows[0].id);
        } catch (error) {
            // A catalog still at 1.0 has no `question` parameter: the approval then holds for the id.
            if ((error as { code?: string }).code !== "42883") throw error;
            const r = await pool.query(`${call}) AS id`, args);
            return String(r.rows[0].id);
        }
    }

    /**
     * Waits until the agent's server shows confirmation `approvalId` (clarify.approval_wait): on a
     * standby, until it has replayed the primary's commit; at once on a primary. False on timeout.
     * A catalog without the function (1.0) leaves a primary nothing to wait for.
     */
    async approvalWait(approvalId: string, timeout: string): Promise<boolean> {
        const pool = this.agent();
        try {
            const r = await pool.query(
                "SELECT clarify.approval_wait($1::bigint, $2::pg_catalog.interval) AS replayed",
                [approvalId, timeout],
            );
            return r.rows[0].replayed === true;
        } catch (error) {
            if ((error as { code?: string }).code !== "42883") throw error;
            const r = await pool.query("SELECT pg_catalog.pg_is_in_recovery() AS standby");
            if (r.rows[0].standby === true) throw error;
            return true;
        }
    }

    async close(): Promise<void> {
        await Promise.all([this.agentPool.end(), this.confirmerPool.end()]);
    }
}
