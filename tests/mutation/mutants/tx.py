"""Mutants of the TX rules (transactions and the tx/confirm exclusion)."""

from __future__ import annotations

import asyncio

from pamqp import commands as spec

from amqp_conformance.fixtures.core.harness_lag import GROWTH_CAP
from amqp_conformance.fixtures.core.timeouts import Bounds
from tests.mutation.mutant_proxy import TO_BROKER, TO_CLIENT, command
from .base import Mutant, changed, replaced
from .pc import PersistenceStripped


class TxChannelAcceptsConfirmSelect(Mutant):
    """confirm.select on a transactional channel is answered select-ok."""

    breaks = ("TX-01",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Confirm.Select) and link.tracker.channel(cmd.channel).mode == "tx":
            if not cmd.method.nowait:
                link.to_client(cmd.channel, spec.Confirm.SelectOk())
            return []
        return None


class ConfirmChannelAcceptsTxSelect(Mutant):
    """tx.select on a channel in confirm mode is answered select-ok."""

    breaks = ("TX-02",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Tx.Select) and link.tracker.channel(cmd.channel).mode == "confirm":
            link.to_client(cmd.channel, spec.Tx.SelectOk())
            return []
        return None


class CommitWithoutSelectAccepted(Mutant):
    """tx.commit and tx.rollback on a non-transactional channel are answered ok."""

    breaks = ("TX-03",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, (spec.Tx.Commit, spec.Tx.Rollback)) and link.tracker.channel(cmd.channel).mode != "tx":
            link.to_client(cmd.channel, spec.Tx.CommitOk() if isinstance(cmd.method, spec.Tx.Commit)
                           else spec.Tx.RollbackOk())
            return []
        return None


class RollbackCommits(Mutant):
    """tx.rollback commits: published messages and acks take effect."""

    breaks = ("TX-04", "TX-05")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Tx.Rollback):
            link.state[("rollbacks", cmd.channel)] = link.state.get(("rollbacks", cmd.channel), 0) + 1
            return [command(cmd.channel, spec.Tx.Commit())]
        return None

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Tx.CommitOk) and link.state.get(("rollbacks", cmd.channel)):
            link.state[("rollbacks", cmd.channel)] -= 1
            return [command(cmd.channel, spec.Tx.RollbackOk())]
        return None


class FakeTransactions(Mutant):
    """tx.select, tx.commit and tx.rollback are answered ok and nothing is transactional:
    publishes and acks take effect at once, returns come before the commit (which TX-06
    records, INFO: no guide sentence says when they must come)."""

    breaks = ("TX-04", "TX-05")

    def from_client(self, link, cmd):
        replies = {spec.Tx.Select: spec.Tx.SelectOk, spec.Tx.Commit: spec.Tx.CommitOk,
                   spec.Tx.Rollback: spec.Tx.RollbackOk}
        if type(cmd.method) in replies:
            link.to_client(cmd.channel, replies[type(cmd.method)]())
            return []
        return None


class EarlierPublishesCommittedAtOnce(Mutant):
    """In a transaction every publish but the last is committed when the next one comes:
    the proxy slips a tx.commit in before each later publish and hides its commit-ok.
    A transaction of one message looks right; one of several is neither invisible before
    commit nor discarded by rollback. (RabbitMQ refuses any frame on a channel while a
    commit is in progress, so the client's frames wait in the proxy for the commit-ok.)"""

    breaks = ("TX-04", "TX-08")

    def from_client(self, link, cmd):
        held = link.state.get(("held", cmd.channel))
        if held is not None:
            held.append(cmd)
            return []
        return self.forward(link, cmd)

    def forward(self, link, cmd):
        count = ("publishes in tx", cmd.channel)
        if isinstance(cmd.method, (spec.Tx.Commit, spec.Tx.Rollback, spec.Channel.Open)):
            link.state[count] = 0
        elif isinstance(cmd.method, spec.Basic.Publish) and link.tracker.channel(cmd.channel).mode == "tx":
            earlier = link.state.get(count, 0)
            link.state[count] = earlier + 1
            if earlier:
                link.state[("held", cmd.channel)] = [cmd]
                return [command(cmd.channel, spec.Tx.Commit())]
        return None

    def from_broker(self, link, cmd):
        if not (isinstance(cmd.method, spec.Tx.CommitOk) and ("held", cmd.channel) in link.state):
            return None
        publish, *later = link.state.pop(("held", cmd.channel))
        link.send(TO_BROKER, publish, raw=True)
        for waiting in later:
            if ("held", cmd.channel) in link.state:
                link.state[("held", cmd.channel)].append(waiting)
                continue
            replacement = self.forward(link, waiting)
            for out in [waiting] if replacement is None else replacement:
                link.send(TO_BROKER, out, raw=replacement is None)
        return []  # the commit-ok of the proxy's own commit


class CommitOkBeforeCommit(Mutant):
    """tx.commit-ok comes long before the commit takes effect: the proxy answers the
    commit itself and passes it on to the broker only after `hold_s` (the client's later
    frames on the channel wait with it; the broker's own commit-ok is dropped). The
    messages arrive, but later than the reply bound another connection gives them after
    commit-ok (TX-04, TX-08: the longest that bound grows to under harness lag, and a
    margin). (TX-09 judges the settles on the committing channel, whose next frames wait
    behind the commit here as at a real broker: not broken.)"""

    breaks = ("TX-04", "TX-08")
    hold_s = Bounds().REPLY * GROWTH_CAP + 3.0

    def from_client(self, link, cmd):
        held = link.state.get(("held", cmd.channel))
        if held is not None:
            held.append(cmd)
            return []
        if isinstance(cmd.method, spec.Tx.Commit):
            link.to_client(cmd.channel, spec.Tx.CommitOk())
            link.swallow(TO_CLIENT, cmd.channel, spec.Tx.CommitOk)
            link.state[("held", cmd.channel)] = [cmd]
            asyncio.get_running_loop().call_later(self.hold_s, self._release, link, cmd.channel)
            return []
        return None

    @staticmethod
    def _release(link, channel):
        for waiting in link.state.pop(("held", channel), []):
            link.send(TO_BROKER, waiting, raw=True)


class SettlesInTransactionLost(Mutant):
    """On a transactional channel basic.nack and basic.reject never reach the broker:
    the commit applies none of them."""

    breaks = ("TX-09",)

    def from_client(self, link, cmd):
        if (isinstance(cmd.method, (spec.Basic.Nack, spec.Basic.Reject))
                and link.tracker.channel(cmd.channel).mode == "tx"):
            return []
        return None


class PersistenceStrippedInTransactions(PersistenceStripped):
    """Persistent publishes on a transactional channel are stored as transient: committed,
    then lost in a restart. Like PC-10, judged only against a broker the suite restarts."""

    breaks = ("TX-10",)

    def from_client(self, link, cmd):
        return super().from_client(link, cmd) if link.tracker.channel(cmd.channel).mode == "tx" else None


class UnroutableInTransactionReturned(Mutant):
    """Every publish in a transaction is taken as mandatory: one that routes nowhere is
    returned at commit although the client never asked for a return."""

    breaks = ("TX-11",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Publish) and not m.mandatory and link.tracker.channel(cmd.channel).mode == "tx":
            link.state[("forced mandatory", cmd.channel)] = True
            return replaced(cmd, changed(m, mandatory=True))
        return None


class UnroutableInTransactionFailsCommit(UnroutableInTransactionReturned):
    """A transaction holding a publish that routes nowhere fails its commit: the broker's
    return of it (the publish made mandatory on the way) is hidden, and its commit-ok
    becomes a channel close 312 NO_ROUTE."""

    breaks = ("TX-11",)

    def from_broker(self, link, cmd):
        if not link.state.get(("forced mandatory", cmd.channel)):
            return None
        if isinstance(cmd.method, spec.Basic.Return):
            link.state[("unroutable", cmd.channel)] = True
            return []
        if isinstance(cmd.method, spec.Tx.CommitOk) and link.state.pop(("unroutable", cmd.channel), False):
            link.fake_channel_close(cmd.channel, 312, "NO_ROUTE")
            return []
        return None


MUTANTS = [
    TxChannelAcceptsConfirmSelect,
    ConfirmChannelAcceptsTxSelect,
    CommitWithoutSelectAccepted,
    RollbackCommits,
    FakeTransactions,
    EarlierPublishesCommittedAtOnce,
    CommitOkBeforeCommit,
    SettlesInTransactionLost,
    PersistenceStrippedInTransactions,
    UnroutableInTransactionReturned,
    UnroutableInTransactionFailsCommit,
]
