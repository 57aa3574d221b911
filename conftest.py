# The suite's pytest plugin lives in fixtures/; loading it here makes `pytest` in the
# repo root (and `pytest conformance/...`) pick it up with no install step. The baseline
# plugin compares outcomes with conformance/baselines/; the model plugin carries the
# options and report labels of the model-based checks (conformance/model/); the run store
# writes each run's folder under reports/runs/; amqp_faults (toxiproxy/) is the
# fault layer; the report guard keeps a crash while reporting one case from ending the run.
pytest_plugins = ["fixtures.report_guard", "fixtures.plugin", "fixtures.baseline_plugin", "fixtures.models.plugin",
                  "fixtures.run_store", "amqp_faults.plugin"]
