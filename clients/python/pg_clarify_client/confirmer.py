"""The confirmer's side: the chat app records what the user chose (docs/reference.md,
"Functions").

These calls run on the chat app's own connection, as a role granted EXECUTE on
``clarify.confirm`` / ``clarify.revoke``; the server refuses them from an agent role.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, Optional, Union

import psycopg

if TYPE_CHECKING:
    from .session import GatedSession


class ApprovalNotReplayed(Exception):
    """The confirmation was recorded, but the agent's server did not show it within the timeout.

    The agent's session is on another server (a standby) that has not replayed the primary's
    commit yet, or cannot see it at all (it is granted to a role the agent does not belong to).
    Running the statement again now would be refused as unverified; the confirmation itself
    stands and ``approval_id`` names it.
    """

    def __init__(self, approval_id: int, timeout: Union[str, timedelta]) -> None:
        super().__init__(
            f"confirmation {approval_id} was recorded but the agent's server did not show it "
            f"within {timeout}"
        )
        self.approval_id = approval_id
        self.timeout = timeout


def confirm(
    connection: psycopg.Connection[Any],
    question_id: str,
    term: Optional[str],
    concept: str,
    granted_to: str,
    confirmed_by: str,
    expires_in: Union[str, timedelta] = "1 hour",
    question: Optional[str] = None,
    agent: Optional["GatedSession"] = None,
    replay_timeout: Union[str, timedelta] = "5 s",
) -> int:
    """Records that ``confirmed_by`` chose ``concept`` for ``term`` in question ``question_id``.

    ``granted_to`` is the role (agent or agent group) that may rely on the choice; it expires
    after ``expires_in`` (an interval such as ``'15 minutes'`` or a ``timedelta``). ``question``
    is the text the user asked, as the agent's record carries it: pass it, and the choice holds
    only for a record with that question (compared exactly, surrounding white space aside), so
    an agent cannot carry it over to another question by keeping the question id. Returns the
    approval id. Committed on return unless a transaction is already open, in which case it
    becomes visible to the agent when that transaction commits. The server's refusals (unknown
    or ineligible concept, concept not a candidate of the term, blank question, caller is an
    agent) propagate as psycopg errors.

    ``agent`` is the session that will run the statement again. When it is on another connection
    (a standby, typically), confirm waits until that server shows the confirmation
    (:meth:`GatedSession.approval_wait`), so the re-run never races replication; it raises
    :class:`ApprovalNotReplayed` when ``replay_timeout`` passes first. The wait needs the
    confirmation committed, so it is refused inside an open transaction.
    """
    if agent is not None and agent.connection is not connection and _in_transaction(connection):
        raise ValueError(
            "confirm cannot wait for the agent's server inside an open transaction: "
            "the confirmation is not committed yet"
        )
    call = "SELECT clarify.confirm(%s, %s, %s, %s::pg_catalog.regrole, %s, %s::pg_catalog.interval"
    params = [question_id, term, concept, granted_to, confirmed_by, expires_in]
    # Named, and only when given: the call stays valid against a catalog without the parameter.
    if question is not None:
        call += ", question => %s"
        params.append(question)
    with connection.transaction():
        row = connection.execute(call + ")", params).fetchone()
    if row is None or row[0] is None:
        raise RuntimeError("clarify.confirm returned no approval id")
    approval_id = int(row[0])
    if agent is not None and agent.connection is not connection:
        if not agent.approval_wait(approval_id, replay_timeout):
            raise ApprovalNotReplayed(approval_id, replay_timeout)
    return approval_id


def _in_transaction(connection: psycopg.Connection[Any]) -> bool:
    return connection.info.transaction_status != psycopg.pq.TransactionStatus.IDLE


def revoke(connection: psycopg.Connection[Any], approval_id: int) -> None:
    """Withdraws a confirmation: from now on no statement can rely on it."""
    with connection.transaction():
        connection.execute("SELECT clarify.revoke(%s)", (approval_id,))
