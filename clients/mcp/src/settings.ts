// The server's settings, read from the environment once at start-up. A missing connection URL is
// not fatal: the tools that need it answer with an error naming the variable.

export interface Settings {
    /** libpq URL of the agent role: every query and check runs as this role. */
    agentUrl?: string;
    /** libpq URL of the confirmer role: used only to record the user's elicited choices. */
    confirmerUrl?: string;
    /** Rows returned to the model at most; the rest are counted, not sent. */
    maxRows: number;
    /** How long a recorded confirmation holds (a PostgreSQL interval). */
    confirmationTtl: string;
    /** How long the server waits for the person to answer an elicitation. */
    elicitationTimeoutMs: number;
    /** How long a re-run waits for the agent's server (a standby) to show a new confirmation. */
    replayTimeout: string;
}

export const DEFAULT_MAX_ROWS = 500;
export const DEFAULT_CONFIRMATION_TTL = "1 hour";
export const DEFAULT_REPLAY_TIMEOUT = "5 s";
export const DEFAULT_ELICITATION_TIMEOUT_MS = 10 * 60 * 1000;

export class SettingError extends Error {}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
    const text = env[name];
    if (text === undefined || text.trim() === "") return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0) {
        throw new SettingError(`${name} must be a positive integer, not "${text}"`);
    }
    return value;
}

function nonEmpty(env: NodeJS.ProcessEnv, name: string): string | undefined {
    const text = env[name];
    return text === undefined || text.trim() === "" ? undefined : text;
}

export function readSettings(env: NodeJS.ProcessEnv): Settings {
    return {
        agentUrl: nonEmpty(env, "PG_CLARIFY_AGENT_URL"),
        confirmerUrl: nonEmpty(env, "PG_CLARIFY_CONFIRMER_URL"),
        maxRows: positiveInteger(env, "PG_CLARIFY_MAX_ROWS", DEFAULT_MAX_ROWS),
        confirmationTtl: nonEmpty(env, "PG_CLARIFY_CONFIRMATION_TTL") ?? DEFAULT_CONFIRMATION_TTL,
        elicitationTimeoutMs: positiveInteger(
            env,
            "PG_CLARIFY_ELICITATION_TIMEOUT_MS",
            DEFAULT_ELICITATION_TIMEOUT_MS,
        ),
        replayTimeout: nonEmpty(env, "PG_CLARIFY_REPLAY_TIMEOUT") ?? DEFAULT_REPLAY_TIMEOUT,
    };
}
