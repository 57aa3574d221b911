# The suite's pytest plugin lives in fixtures/; loading it here makes `pytest` in the
# repo root (and `pytest conformance/...`) pick it up with no install step.
pytest_plugins = ["fixtures.plugin", "amqp_faults.plugin"]
