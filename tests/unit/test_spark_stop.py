"""A build stops its Spark session only once no task is still running: a task of a stage
the adaptive planner gave up can outlive the action that started it, and a stop before
its result arrived printed a RejectedExecutionException after a good build."""

from __future__ import annotations

from amqp_conformance.reports.pipeline.settings import stop_session


class Executor:
    def __init__(self, running: list[int]):
        self.running = running

    def numRunningTasks(self) -> int:
        return self.running.pop(0) if len(self.running) > 1 else self.running[0]


class Session:
    """What stop_session reads of a classic session: its executors' running tasks."""

    def __init__(self, running: list[int]):
        self.executor, self.stopped_with = Executor(running), None
        tracker = type("Tracker", (), {"getExecutorInfos": lambda _: [self.executor]})()
        context = type("Context", (), {"statusTracker": lambda _: tracker})()
        self._jsc = type("JavaContext", (), {"sc": lambda _: context})()

    def stop(self) -> None:
        self.stopped_with = list(self.executor.running)


def test_the_session_stops_after_its_last_task_ends():
    session = Session([2, 1, 1, 0])
    stop_session(session, within_s=5)
    assert session.stopped_with == [0]


def test_a_task_that_never_ends_delays_the_stop_only_to_the_bound():
    session = Session([1])
    stop_session(session, within_s=0.2)
    assert session.stopped_with == [1]


def test_a_spark_connect_client_stops_at_once():
    stopped = []
    client = type("ConnectSession", (), {"stop": lambda _: stopped.append(True)})()
    stop_session(client)
    assert stopped == [True]
