# The suite's pytest plugin lives in fixtures/ (fixtures/plugin/__init__.py loads each part: the
# session, collection, verdict, baseline, model, run-store and fault plugins, and the
# report guard); naming it here makes `pytest` in the repo root (and
# `pytest conformance/...`) pick it up with no install step.
pytest_plugins = ["amqp_conformance.fixtures.plugin"]
