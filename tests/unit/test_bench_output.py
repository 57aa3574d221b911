"""ci/bench prints its configurations (ci/suite arguments) in every line and table: a
`--amqp-url` in one must show without its password (it did, in full, before)."""

from __future__ import annotations

import importlib.util
import json
import sys

from tests.suite_runs import REPO

spec = importlib.util.spec_from_file_location("ci_bench", REPO / "ci" / "bench.py")
bench = sys.modules["ci_bench"] = importlib.util.module_from_spec(spec)  # its dataclasses look it up there
spec.loader.exec_module(bench)

CONFIG = "-k ACK-04 --amqp-url amqp://conformance:s3cret-pw@127.0.0.1:5672/vhost"


def a_run(tree: str = "new") -> "bench.Run":
    fields = {name: 0 for name in bench.Run.__dataclass_fields__}
    fields.update(config=CONFIG, tree=tree, seconds=4.8, cpu_s=2.6, load_before=1.0, load_after=1.0, reruns=[])
    return bench.Run(**fields)


def test_the_tables_show_the_url_without_its_password():
    text = bench.table([a_run()], [CONFIG]) + bench.load_table([a_run()])
    assert "s3cret-pw" not in text and "amqp://conformance:***@127.0.0.1:5672/vhost" in text


def test_the_json_keeps_no_password(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench, "one_run", lambda config, runs_dir, keep=None, tree=None: a_run())
    out = tmp_path / "runs.json"
    assert bench.main(["--runs", "1", "--json", str(out), CONFIG]) == 0
    printed = capsys.readouterr()
    assert "s3cret-pw" not in printed.out + printed.err + out.read_text()
    assert json.loads(out.read_text())[0]["config"].endswith(":***@127.0.0.1:5672/vhost")
