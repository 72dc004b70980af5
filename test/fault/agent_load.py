"""Agent load for the fault harness: clients run governed statements, each under its own
question id, and record which ones got an answer (a result, or a QC001-QC004 rejection).

Usage: agent_load.py SECONDS CLIENTS OUTPUT_FILE   (connection from PGHOST/PGPORT/PGDATABASE,
as the role in FAULT_AGENT; question ids start with FAULT_PREFIX, default "fault"). Connection
losses (the server restarting) are waited out.
"""
import os
import sys
import threading
import time

import psycopg

ALLOWED = "SELECT booked_amount FROM fault.orders WHERE id = %s"
REJECTED = "SELECT invoiced_amount FROM fault.orders WHERE id = %s"
# Question ids start with it: runs against one database keep theirs apart.
PREFIX = os.environ.get("FAULT_PREFIX", "fault")


def client(number, deadline, answered, lock, errors):
    i = 0
    conn = None
    while time.time() < deadline:
        try:
            if conn is None or conn.closed:
                conn = psycopg.connect(user=os.environ["FAULT_AGENT"], autocommit=True,
                                       connect_timeout=2)
            qid = f"{PREFIX}_{number}_{i}"
            i += 1
            conn.execute("SELECT set_config('pg_clarify.resolution', %s, false)",
                         ['{"question_id": "%s"}' % qid])
            sql = ALLOWED if i % 2 else REJECTED
            try:
                conn.execute(sql, [i % 1000 + 1]).fetchall()
                outcome = "ok"
            except psycopg.errors.DatabaseError as e:
                state = e.sqlstate or ""
                if state in ("QC001", "QC002", "QC003", "QC004"):
                    outcome = state
                elif state == "QC005":
                    continue  # the audit was not written: not an answer with a decision
                else:
                    raise
            with lock:
                answered.append((qid, outcome))
        except (psycopg.OperationalError, psycopg.errors.AdminShutdown,
                psycopg.errors.CrashShutdown) as e:
            with lock:
                errors.append(type(e).__name__)
            conn = None
            time.sleep(0.2)


def main():
    seconds, clients, output = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    deadline = time.time() + seconds
    answered, errors, lock = [], [], threading.Lock()
    threads = [threading.Thread(target=client, args=(n, deadline, answered, lock, errors))
               for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open(output, "w") as f:
        for qid, outcome in answered:
            f.write(f"{qid}\t{outcome}\n")
    print(f"answered={len(answered)} connection_errors={len(errors)}")


if __name__ == "__main__":
    main()
