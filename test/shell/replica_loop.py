"""The sessions of replica_loop.t: an agent on a hot standby, the chat app on the primary.

Prints one line per check: "ok<TAB>name", "not ok<TAB>name<TAB>detail" or "skip<TAB>name<TAB>why".
The harness (this file, not the client) polls for replay where a test needs a known point; the
client's own loop never sleeps: it waits with clarify.approval_wait.
"""

import os
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../clients/python"))
from pg_clarify_client import (  # noqa: E402
    AuditUnavailable, Binding, ClarificationRequired, GatedSession, ResolutionRecord,
    as_choice_question, confirm, revoke,
)

PRIMARY = {"host": os.environ["PRIMARY_HOST"], "port": os.environ["PRIMARY_PORT"]}
STANDBY = {"host": os.environ["STANDBY_HOST"], "port": os.environ["STANDBY_PORT"]}
AGENT, APP, OTHER = "regress_rl_agent", "regress_rl_app", "regress_rl_other"
REVENUE, BOOKED = "rl revenue", "metric.rl_booked"
SQL = "SELECT sum(booked_amount) FROM rl.orders"
QUESTION = "What was our revenue?"


def report(status, name, detail=""):
    print("\t".join([status, name, " ".join(str(detail).split())]), flush=True)


def check(name, got, expected):
    if got == expected:
        report("ok", name)
    else:
        report("not ok", name, f"expected {expected!r}, got {got!r}")


def connect(server, user="postgres"):
    return psycopg.connect(dbname="postgres", user=user, autocommit=True, **server)


def poll(what, condition, seconds=30):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.01)


def scalar(conn, sql, params=None):
    return conn.execute(sql, params).fetchone()[0]


class Cluster:
    def __init__(self):
        self.primary = connect(PRIMARY)
        self.standby = connect(STANDBY)

    def replayed(self):
        """Until the standby has replayed everything the primary wrote so far."""
        lsn = scalar(self.primary, "SELECT pg_current_wal_insert_lsn()")
        poll("replay", lambda: scalar(
            self.standby, "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (str(lsn),)))

    def pause_replay(self):
        self.standby.execute("SELECT pg_wal_replay_pause()")
        poll("the pause", lambda: scalar(
            self.standby, "SELECT pg_get_wal_replay_pause_state()") == "paused")

    def resume_replay(self):
        self.standby.execute("SELECT pg_wal_replay_resume()")

    def committed(self, question_id):
        poll("the confirmation", lambda: scalar(
            self.primary, "SELECT count(*) FROM clarify.approvals WHERE question_id = %s",
            (question_id,)) > 0)

    def waiting_for_replay(self, pid):
        """Until standby backend pid waits inside approval_wait (its extension wait event)."""
        poll("the replay wait", lambda: scalar(
            self.standby, "SELECT wait_event_type = 'Extension' FROM pg_stat_activity "
            "WHERE pid = %s", (pid,)))


def state(result):
    return result.get("state") or result.get("decision")


def changes_apply_after_replay(cluster):
    """One agent session on the standby, open across every change made on the primary."""
    agent = GatedSession(connect(STANDBY, AGENT))
    agent.attach(ResolutionRecord("q_rl_changes", QUESTION))
    check("standby: two meanings, no default: check() asks", state(agent.check(SQL)), "AMBIGUOUS")
    check("standby: and resolve() too", agent.resolve(REVENUE)["decision"], "AMBIGUOUS")

    cluster.primary.execute(
        "INSERT INTO clarify.defaults (term, concept_id, approved_by) VALUES (%s, %s, 'board')",
        (REVENUE, BOOKED))
    cluster.replayed()
    check("standby, same session: a new default applies after replay (check)",
          agent.check(SQL)["decision"], "allowed")
    resolved = agent.resolve(REVENUE)
    check("standby, same session: a new default applies after replay (resolve)",
          (resolved["decision"], resolved["selected"], resolved["default_applied"]),
          ("RESOLVED", BOOKED, True))

    cluster.primary.execute("UPDATE clarify.concepts SET available = false WHERE id = %s",
                            (BOOKED,))
    cluster.replayed()
    resolved = agent.resolve(REVENUE)
    check("standby, same session: a concept made unavailable kills its default after replay",
          (resolved["decision"], resolved["default_applied"]), ("UNSUPPORTED", False))
    check("standby, same session: and check() refuses the read", state(agent.check(SQL)),
          "UNSUPPORTED")

    # Inside an open transaction on the standby: the change applies at its next statement.
    agent.connection.execute("BEGIN")
    before = state(agent.check(SQL))
    cluster.primary.execute("UPDATE clarify.concepts SET available = true WHERE id = %s",
                            (BOOKED,))
    cluster.primary.execute("DELETE FROM clarify.defaults WHERE term = %s", (REVENUE,))
    cluster.replayed()
    after = state(agent.check(SQL))
    agent.connection.execute("COMMIT")
    check("standby, open transaction: changes replayed meanwhile apply at the next statement",
          (before, after), ("UNSUPPORTED", "AMBIGUOUS"))

    # Memberships reach the gate through the role caches, not the catalog tables.
    member = connect(STANDBY, "regress_rl_member")
    before = scalar(member, "SELECT clarify.gated()")
    cluster.primary.execute("GRANT regress_rl_agent TO regress_rl_member")
    cluster.replayed()
    check("standby, same session: a new membership of a governed role applies after replay",
          (before, scalar(member, "SELECT clarify.gated()")), (False, True))
    return agent


def approvals_and_the_wait(cluster, agent):
    record = ResolutionRecord("q_rl_confirm", QUESTION,
                              [Binding(REVENUE, BOOKED, "user_confirmation")])
    agent.attach(record)
    check("standby: an unconfirmed claim does not verify", state(agent.check(SQL)), "UNVERIFIED")
    app = connect(PRIMARY, APP)

    cluster.pause_replay()
    approval = confirm(app, record.question_id, REVENUE, BOOKED, AGENT, "alice", question=QUESTION)
    other = confirm(app, record.question_id, REVENUE, BOOKED, OTHER, "bob", question=QUESTION)
    check("replay paused: approval_wait says false once the timeout passes",
          agent.approval_wait(approval, "0 s"), False)
    check("replay paused: the confirmation does not verify on the standby yet",
          state(agent.check(SQL)), "UNVERIFIED")
    agent.connection.execute("SET statement_timeout = '200ms'")
    try:
        agent.approval_wait(approval, "1 min")
        report("not ok", "statement_timeout cancels the wait", "it returned")
    except psycopg.errors.QueryCanceled:
        report("ok", "statement_timeout cancels the wait")
    agent.connection.execute("RESET statement_timeout")
    canceller = GatedSession(connect(STANDBY, AGENT))
    answer = {}
    pid = canceller.connection.info.backend_pid
    waiter = threading.Thread(target=lambda: answer.update(
        cancelled=_cancelled(canceller, approval)))
    waiter.start()
    cluster.waiting_for_replay(pid)
    cluster.standby.execute("SELECT pg_cancel_backend(%s)", (pid,))
    waiter.join(60)
    check("a cancel interrupts the wait", answer.get("cancelled"), True)

    waiting = GatedSession(connect(STANDBY, AGENT))
    waiter = threading.Thread(
        target=lambda: answer.update(replayed=waiting.approval_wait(approval, "1 min")))
    waiter.start()
    cluster.waiting_for_replay(waiting.connection.info.backend_pid)
    cluster.resume_replay()
    waiter.join(60)
    check("a waiting agent gets true once the standby replays the confirmation",
          answer.get("replayed"), True)
    check("standby, same session: the replayed confirmation verifies",
          agent.check(SQL)["decision"], "allowed")
    check("another role's confirmation does not exist for the agent",
          agent.approval_wait(other, "0 s"), False)
    check("but the owner sees it on the standby",
          scalar(cluster.standby, "SELECT clarify.approval_wait(%s, '0 s')", (other,)), True)

    conn = agent.connection
    conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    try:
        conn.execute("SELECT clarify.approval_wait(%s)", (approval,))
        report("not ok", "REPEATABLE READ: refused", "it ran")
    except psycopg.errors.FeatureNotSupported as error:
        check("REPEATABLE READ: refused", "REPEATABLE READ" in str(error), True)
    conn.execute("ROLLBACK")

    revoke(app, approval)
    cluster.replayed()
    check("standby, same session: a revocation applies after replay", state(agent.check(SQL)),
          "UNVERIFIED")


def _cancelled(session, approval):
    try:
        session.approval_wait(approval, "1 min")
        return False
    except psycopg.errors.QueryCanceled:
        return True


def client_waits_before_the_rerun(cluster):
    """confirm(agent=...) returns only once the agent's standby shows the confirmation."""
    app = connect(PRIMARY, APP)
    agent = GatedSession(connect(STANDBY, AGENT))
    record = ResolutionRecord("q_rl_client", QUESTION)
    cluster.pause_replay()
    outcome = {}

    def chat_app():
        confirm(app, record.question_id, REVENUE, BOOKED, AGENT, "alice", question=QUESTION,
                agent=agent, replay_timeout="1 min")
        agent.attach(record.with_binding(Binding(REVENUE, BOOKED, "user_confirmation")))
        outcome["rerun"] = agent.check(SQL)["decision"]

    thread = threading.Thread(target=chat_app)
    thread.start()
    cluster.committed(record.question_id)
    cluster.waiting_for_replay(agent.connection.info.backend_pid)
    cluster.resume_replay()
    thread.join(60)
    check("client: confirm waits for the standby, so the re-run verifies there",
          outcome.get("rerun"), "allowed")


def end_to_end(cluster):
    """Ask on the standby, confirm on the primary, wait, run again on the standby."""
    names = ["loop: the agent on the standby is asked (QC001)",
             "loop: after confirm on the primary, the re-run on the standby is allowed",
             "loop: the standby's decision names the confirmation"]
    agent = GatedSession(connect(STANDBY, AGENT))
    record = ResolutionRecord("q_rl_loop", QUESTION)
    agent.attach(record)
    try:
        agent.run(SQL)
        report("not ok", names[0], "the statement ran")
        return
    except AuditUnavailable as error:
        report("not ok", names[0], f"the standby could not audit: {error}")
        return
    except ClarificationRequired as ask:
        report("ok", names[0])
        picked = as_choice_question(ask)["options"][0]["value"]
    app = connect(PRIMARY, APP)
    approval = confirm(app, record.question_id, REVENUE, picked, AGENT, "alice",
                       question=QUESTION, agent=agent)
    agent.attach(record.with_binding(Binding(REVENUE, picked, "user_confirmation")))
    check(names[1], agent.run(SQL), [(scalar(cluster.primary, SQL),)])
    bindings = agent.last_decision()["bindings"]
    check(names[2], [b.get("approval_id") for b in bindings], [approval])


def main():
    cluster = Cluster()
    agent = changes_apply_after_replay(cluster)
    approvals_and_the_wait(cluster, agent)
    client_waits_before_the_rerun(cluster)
    end_to_end(cluster)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a harness failure is a failed check, with its reason
        report("not ok", "the replica loop ran to its end", f"{type(error).__name__}: {error}")
        sys.exit(1)
