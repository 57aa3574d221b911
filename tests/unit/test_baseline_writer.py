"""The baseline writer is tomli-w (fixtures/plugin/baselines.py write): it wrote TOML by
hand over json.dumps, a JSON string standing in for a TOML basic string."""

from __future__ import annotations

import inspect
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from amqp_conformance.fixtures.plugin import baselines

BASELINES = Path(__file__).resolve().parents[2] / "conformance" / "baselines"


@pytest.mark.parametrize("name", sorted(p.stem for p in BASELINES.glob("*.toml")))
def test_every_baseline_reads_back_as_it_was_written(tmp_path, name):
    original = BASELINES / f"{name}.toml"
    product, broker = re.match(r"# Expected outcomes on (.*) \(--broker (.*)\): only",
                               original.read_text().splitlines()[0]).groups()
    copy = tmp_path / original.name
    shutil.copy(original, copy)
    baselines.write(copy, broker, product, baselines.load(original))
    before, after = baselines.load(original), baselines.load(copy)
    assert all(before[case] == expected for case, expected in after.items())  # each entry as it was
    for case, expected in before.items():  # a pass, or what an FLT-05 copy's fault-free case says, is implied
        implied = baselines.expectation_for(after, case) or baselines.PASS_EXPECTED
        assert baselines._same(implied, expected), case
    assert tomllib.loads(copy.read_text()).get("extends") == tomllib.loads(original.read_text()).get("extends")
    assert copy.read_text().startswith(f"# Expected outcomes on {product} (--broker {broker})")


def test_text_that_json_and_toml_escape_differently_survives(tmp_path):
    tricky = 'quotes "q", a backslash \\d, a tab\t, unicode é ✓, a line\nbreak and a \x7f delete'
    path = tmp_path / "b.toml"
    baselines.write(path, "b", "B", {"ACK-07[classic]": baselines.Expectation("fail", tricky, "ref \\x", ["pass"])})
    assert baselines.load(path)["ACK-07[classic]"] == baselines.Expectation("fail", tricky, "ref \\x", ["pass"])


def test_the_writer_is_the_library():
    source = inspect.getsource(baselines.write)
    assert "tomli_w.dumps" in source and "json" not in source


def test_why_the_replies_vary_is_kept_by_the_writer_and_read_by_the_replay(tmp_path):
    path = tmp_path / "b.toml"
    varying = baselines.Expectation("fail", "reordered", "basic [07]", replies_vary="another order every run")
    baselines.write(path, "b", "B", {"QU-22[plain]": varying, "QU-15[purge]": baselines.Expectation("fail", "r", "s")})
    loaded = baselines.load(path)
    assert loaded["QU-22[plain]"] == varying and loaded["QU-15[purge]"].replies_vary == ""
    assert "replies_vary" not in tomllib.loads(path.read_text())["cases"]["QU-15[purge]"]
    assert baselines.load(baselines.path_of("qpid"))["QU-22[plain]"].replies_vary  # the one such entry now
