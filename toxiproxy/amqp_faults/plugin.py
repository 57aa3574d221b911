"""The fault layer's pytest plugin: the Toxiproxy server's life cycle, one proxy per
test, the message history of fault tests (attachments and JUnit properties), and the
FLT-05 copies of the ACK/QOS/PC/TX tests.

Server: --toxiproxy-url (env TOXIPROXY_URL) names an external server; otherwise the
suite starts the real toxiproxy-server on 127.0.0.1 and a free port when the first test
needs it, and stops it at the end. Under xdist the controller starts it and hands its
URL to every worker through workerinput, as it does the broker target; each test then
creates and deletes its own proxy (never a global /reset). Without a server, fault
tests are reported unsupported with one reason, never passed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path

import pytest

from amqp_conformance.fixtures.vocabulary import checks
from amqp_conformance.fixtures.vocabulary.history import History
from amqp_conformance.fixtures.vocabulary.history_checker import check_history
from amqp_conformance.fixtures.core.outcomes import CHECK_ATTACHMENT, HISTORY_ATTACHMENT, PROPERTY_MARKER, TAG_MARKER
from amqp_conformance.fixtures.wire.dialogue import ConnectFailed
from amqp_conformance.fixtures.core.rules import CONFORMANCE_DIR, rule_of
from amqp_conformance.fixtures.vocabulary.current_run import STATE

from .client import ToxiproxyAPI, ToxiproxyError
from .faults import FaultInjector
from .profiles import PROFILES, RULE_FLT_05
from .server import ToxiproxyServer, ToxiproxyUnavailable, find_binary

HISTORY = pytest.StashKey[History]()
PROFILE_MARKER = "fault_profile"
NEEDS_TOXIPROXY = "needs_toxiproxy"  # a report attribute: it crosses from an xdist worker


class _ServerState:
    url: str | None = None
    error: str | None = None
    owned: ToxiproxyServer | None = None
    version: str | None = None
    needed = False


SERVER = _ServerState()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("amqp-conformance")
    group.addoption("--toxiproxy-url", default=os.environ.get("TOXIPROXY_URL"),
                    help="an external Toxiproxy server (http://host:port; env TOXIPROXY_URL). Without it "
                         "the suite starts toxiproxy-server v2.12.0 itself (installed by ci/setup)")
    group.addoption("--toxiproxy-server", default=None, metavar="PATH",
                    help="the toxiproxy-server binary to start (default: $TOXIPROXY_SERVER, the ci/setup "
                         "cache, then PATH). Without any server the fault rules are reported unsupported")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{PROFILE_MARKER}(name): an FLT-05 copy run through a network profile")
    # Imported here, once pytest has loaded the judge as a plugin (its asserts rewritten).
    from amqp_conformance.fixtures.plugin import judge

    # Judged as FLT-05 is, whatever the strength of the case's own rule (the judge's table).
    judge.add_reading("a handshake that fails through a fault", judge.Reading(
        ConnectFailed, _handshake_through_the_link, strength=RULE_FLT_05.strength))
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        SERVER.url = workerinput.get("toxiproxy_url")
        SERVER.error = workerinput.get("toxiproxy_error")


def _server_url(config: pytest.Config) -> str:
    """The Toxiproxy URL for this run, starting the server on first use."""
    if SERVER.url is None and SERVER.error is None:
        external = config.getoption("toxiproxy_url")
        try:
            if external:
                SERVER.version = ToxiproxyAPI(external).version()
                SERVER.url = external
            else:
                SERVER.owned = ToxiproxyServer(find_binary(config.getoption("toxiproxy_server")))
                SERVER.url = SERVER.owned.start()
                SERVER.version = ToxiproxyAPI(SERVER.url).version()
        except (ToxiproxyUnavailable, ToxiproxyError) as problem:
            SERVER.owned, SERVER.url = None, None
            SERVER.error = f"no Toxiproxy server: {problem}"
    if SERVER.error:
        raise ToxiproxyUnavailable(SERVER.error)
    return SERVER.url


@pytest.hookimpl(optionalhook=True)  # an xdist hook: without xdist (-p no:xdist) it is never called
def pytest_configure_node(node) -> None:  # xdist controller: one server for every worker
    try:
        node.workerinput["toxiproxy_url"] = _server_url(node.config)
    except ToxiproxyUnavailable as problem:
        node.workerinput["toxiproxy_error"] = str(problem)


def pytest_unconfigure(config: pytest.Config) -> None:
    if SERVER.owned is not None:
        SERVER.owned.stop()
        SERVER.owned = None


class ToxiproxyMissing(checks.Unsupported):
    """A fault test is unsupported because no Toxiproxy server is there: the type the
    summary's note is decided by (never the skip's text)."""


def pytest_runtest_logreport(report) -> None:
    # Under xdist the fault tests run in the workers; the controller, which prints the
    # summary, learns from their reports (NEEDS_TOXIPROXY, set where the test ran) that
    # one wanted a server.
    if getattr(report, NEEDS_TOXIPROXY, False):
        SERVER.needed = True


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if SERVER.error and SERVER.needed:
        terminalreporter.line(f"toxiproxy: {SERVER.error} -> the fault tests selected are reported unsupported",
                              yellow=True)


# -- fixtures ------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def toxiproxy_api(request: pytest.FixtureRequest) -> ToxiproxyAPI:
    try:
        return ToxiproxyAPI(_server_url(request.config))
    except ToxiproxyUnavailable as problem:
        SERVER.needed = True
        raise ToxiproxyMissing("fault injection needs Toxiproxy", str(problem)) from None


@pytest.fixture
def fault_proxy(request: pytest.FixtureRequest, toxiproxy_api: ToxiproxyAPI):
    """A proxy of this test's own in front of the broker under test, deleted afterwards."""
    state = request.config.stash[STATE]
    if state.target is None:
        pytest.fail("no broker target for the proxy", pytrace=False)
    digest = hashlib.sha1(f"{os.environ.get('PYTEST_XDIST_WORKER', 'w')}/{request.node.nodeid}".encode())
    proxy = toxiproxy_api.create_proxy(f"amqpc-{state.run_id}-{digest.hexdigest()[:12]}",
                                       f"{state.target.host}:{state.target.port}")
    try:
        yield proxy
    finally:
        try:
            proxy.delete()
        except ToxiproxyError as problem:
            checks.attach("toxiproxy cleanup problem", str(problem))


@pytest.fixture
def history(request: pytest.FixtureRequest) -> History:
    """The message history of this test; attached to its report."""
    recorded = History()
    request.node.stash[HISTORY] = recorded
    return recorded


@pytest.fixture
def faults(fault_proxy, broker, history):
    """This test's proxy, broker and history together: connections through the proxy or
    direct, faults applied and removed (and lifted at teardown if still applied)."""
    injector = FaultInjector(fault_proxy, broker, history)
    yield injector
    injector.remove_all_now()


@pytest.fixture(autouse=True)
def _flt05_route(request: pytest.FixtureRequest):
    """For an FLT-05 copy: its own proxy with the profile from before the first byte,
    and the test's broker connections routed through it."""
    marker = request.node.get_closest_marker(PROFILE_MARKER)
    if marker is None:
        yield
        return
    profile = PROFILES[marker.args[0]]
    proxy = request.getfixturevalue("fault_proxy")
    for toxic in profile.toxics:
        proxy.add_toxic(toxic)
    test_broker = request.getfixturevalue("broker")
    test_broker.route = test_broker.target.with_address(proxy.host, proxy.port)
    checks.observe("fault profile", f"{profile.name}: {profile.detail}")
    # The copy's connections go into a message history too (the rule itself judges;
    # the history and its check are attached for the report).
    recorded = request.getfixturevalue("history")
    recorded.fault_name = profile.name
    open_connection = test_broker.connection

    async def recorded_connection(**kwargs):
        return recorded.watch(await open_connection(**kwargs))

    test_broker.connection = recorded_connection
    recorded.fault(profile.name, "applied", profile.detail)
    yield


# -- FLT-05: every ACK/QOS/PC/TX test again through each profile ---------------------------------
# The copies are made where their module is collected, so they are collected items like any
# other (pytest's "collected N items" and "M deselected" count them), and run after every
# other case, as they always have.
@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    report = yield
    if isinstance(collector, (pytest.Module, pytest.Class)) and report.passed:
        report.result.extend(_copy_through(item, profile) for item in list(report.result) if _gets_copies(item)
                             for profile in PROFILES)
    return report


def _gets_copies(item) -> bool:
    declared = rule_of(item) if isinstance(item, pytest.Function) else None
    if (declared is None or not declared.flt05_copies
            or CONFORMANCE_DIR not in Path(str(item.fspath)).resolve().parents):
        return False
    # Not a fault test already (PC-10 crashes its own node: no network profile on top), nor
    # a cluster's case (PC-19/no-replica: the profile's proxy fronts one node only).
    return item.get_closest_marker("fault") is None and item.get_closest_marker("cluster") is None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    items.sort(key=lambda item: item.get_closest_marker(PROFILE_MARKER) is not None)  # stable: copies last


def _copy_through(item: pytest.Function, profile: str) -> pytest.Function:
    base = getattr(item, "callspec", None)
    suffix = f"flt05-{profile}"
    callspec = dataclasses.replace(base, _idlist=[*base._idlist, suffix]) if base is not None \
        else _empty_callspec(suffix)
    copy = type(item).from_parent(item.parent, name=f"{item.originalname}[{callspec.id}]", callspec=callspec,
                                  callobj=item.obj, fixtureinfo=item._fixtureinfo, keywords=item.keywords,
                                  originalname=item.originalname)
    copy.own_markers = [*item.own_markers]
    copy.add_marker(pytest.mark.fault_profile(profile))
    # The profile is one of the copy's parameters (its record's, its Allure result's):
    # without it the four copies and their base case would share one history key.
    copy.add_marker(pytest.mark.case_parameter("fault profile", profile))
    copy.add_marker(pytest.mark.fault)
    copy.extra_keyword_matches.update({RULE_FLT_05.id, RULE_FLT_05.keyword, profile, "fault"})
    # Its JUnit properties and Allure tags, written by the sinks.
    copy.add_marker(getattr(pytest.mark, PROPERTY_MARKER)("fault_rule", RULE_FLT_05.id))
    copy.add_marker(getattr(pytest.mark, PROPERTY_MARKER)("fault_profile", profile))
    copy.add_marker(getattr(pytest.mark, TAG_MARKER)(RULE_FLT_05.id))
    copy.add_marker(getattr(pytest.mark, TAG_MARKER)(f"fault profile {profile}"))
    return copy


def _handshake_through_the_link(item: pytest.Item, declared, failed: BaseException) -> None:
    """The judge's reading of a handshake that fails (amqp_conformance.fixtures.plugin.judge.READINGS). In an
    FLT-05 copy, a broker that cannot even complete the handshake through the profile
    breaks FLT-05 (TCP is a byte stream: a protocol header or frame split in pieces is
    still the same bytes); it is a failure of that rule, not of the run, whatever the
    strength of the copied one."""
    marker = item.get_closest_marker(PROFILE_MARKER)
    if marker is not None:
        raise checks.violation(f"{RULE_FLT_05.id}: the broker works through the {marker.args[0]} profile",
                                 "the AMQP handshake completes", str(failed)) from None
    # A fault test whose connection through its applied link cannot even complete the
    # handshake: the same byte stream as without the fault, so the same verdict.
    injector = item.funcargs.get("faults") if hasattr(item, "funcargs") else None
    applied = injector.applied if isinstance(injector, FaultInjector) else []
    if applied:
        raise checks.violation(f"the broker completes the AMQP handshake through the link ({', '.join(applied)})",
                                 "connection.open-ok", str(failed)) from None


def _empty_callspec(suffix: str):
    from _pytest.python import CallSpec  # the type of item.callspec; no public constructor

    return CallSpec(_idlist=[suffix])


# -- the history in the case's record ----------------------------------------------------------
@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    """The message history and its check go into the test's record (attachments and
    observations), before the judge (amqp_conformance.fixtures.plugin.judge, an outer wrapper) builds the case's
    record from it; its sinks write them to JUnit and Allure."""
    report = yield
    if call.excinfo is not None and call.excinfo.errisinstance(ToxiproxyMissing):
        setattr(report, NEEDS_TOXIPROXY, True)
    recorded = item.stash.get(HISTORY, None)
    if recorded is None or report.when != "call":
        return report
    if recorded.last_check is None and recorded.events:
        recorded.last_check = check_history(recorded.events, fault=recorded.fault_name,
                                            queue_type=recorded.queue_type)
    verdict = recorded.last_check
    if verdict is not None:
        checks.observe("history_fault", verdict.fault)
        for name, value in verdict.junit_properties():
            checks.observe(name, value)
    checks.attach(HISTORY_ATTACHMENT, recorded.jsonl(), terminal=False)
    if verdict is not None:
        checks.attach(CHECK_ATTACHMENT, json.dumps(verdict.to_json(), indent=1), terminal=False)
    if report.failed:
        report.sections.append(("message history (JSON Lines)", recorded.jsonl()[-20000:]))
    return report
