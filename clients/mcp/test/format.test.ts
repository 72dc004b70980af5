// The TypeScript follows .prettierrc.json, as the C++ follows .clang-format.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

test("src/, test/ and examples/ are prettier-formatted", () => {
    const prettier = join(PACKAGE_DIR, "node_modules", "prettier", "bin", "prettier.cjs");
    const run = spawnSync(process.execPath, [prettier, "--check", "src", "test"], {
        cwd: PACKAGE_DIR,
        encoding: "utf8",
    });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
});
