"""A build stops its Spark session only once no job is active and no task is still
running: a task of a stage the adaptive planner gave up can outlive the action that
started it, and a stop before its result arrived printed a RejectedExecutionException
after a good build. tests/integration/test_reports_pipeline.py checks the reading against a
real session's running tasks."""

from __future__ import annotations

from amqp_conformance.reports.pipeline.settings import stop_session


class Readings:
    """Successive (running tasks, active jobs) readings; the last one repeats."""

    def __init__(self, counts: list[tuple[int, int]]):
        self.counts = counts

    def next(self) -> tuple[int, int]:
        return self.counts.pop(0) if len(self.counts) > 1 else self.counts[0]


class Session:
    """What stop_session reads of a classic session: the task scheduler's running tasks by
    executor (a Scala map, read through its values' iterator) and the active jobs."""

    def __init__(self, counts: list[tuple[int, int]]):
        self.readings, self.stopped_with, self.current = Readings(counts), None, (0, 0)
        session = self

        class Values:
            def __init__(self):
                session.current = session.readings.next()
                self.left = [session.current[0]]

            def hasNext(self) -> bool:
                return bool(self.left)

            def next(self) -> int:
                return self.left.pop()

        scheduler = type("TaskScheduler", (), {"runningTasksByExecutors": lambda _: type(
            "RunningTasks", (), {"valuesIterator": lambda _: Values()})()})()
        tracker = type("Tracker", (), {"getActiveJobIds": lambda _: [0] * session.current[1]})()
        context = type("Context", (), {"taskScheduler": lambda _: scheduler, "statusTracker": lambda _: tracker})()
        self._jsc = type("JavaContext", (), {"sc": lambda _: context})()

    def stop(self) -> None:
        self.stopped_with = self.current


def test_the_session_stops_after_its_last_task_and_job_end():
    session = Session([(2, 1), (1, 1), (0, 1), (0, 0)])
    stop_session(session, within_s=5)
    assert session.stopped_with == (0, 0)


def test_a_task_that_never_ends_delays_the_stop_only_to_the_bound():
    session = Session([(1, 1)])
    stop_session(session, within_s=0.2)
    assert session.stopped_with == (1, 1)


def test_a_session_stopped_before_stops_again_at_once():
    stopped = []
    context = type("StoppedContext", (), {"taskScheduler": lambda _: None})()
    session = type("Session", (), {"_jsc": type("JavaContext", (), {"sc": lambda _: context})(),
                                   "stop": lambda _: stopped.append(True)})()
    stop_session(session, within_s=5)
    assert stopped == [True]


def test_a_spark_connect_client_stops_at_once():
    stopped = []
    client = type("ConnectSession", (), {"stop": lambda _: stopped.append(True)})()
    stop_session(client)
    assert stopped == [True]
