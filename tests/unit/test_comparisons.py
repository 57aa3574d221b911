"""Comparisons say what they compared (issue 49 item 4): flips count only the cases every
run ran and refuse runs of different brokers; `reports diff` prints the overlap, exits 1
when cases differ (as diff(1)) and names a run that is not there as missing."""

from __future__ import annotations

import json
from pathlib import Path

from amqp_conformance.reports import cells, flips


def stored(root: Path, run_id: str, outcomes: dict[str, str], broker: str = "RabbitMQ 4.0.5") -> Path:
    run = root / run_id
    run.mkdir(parents=True)
    (run / "results.jsonl").write_text("".join(json.dumps({"rule": case.split("[")[0], "case": case, "outcome": o})
                                               + "\n" for case, o in outcomes.items()))
    name, version = broker.rsplit(" ", 1)
    (run / "manifest.json").write_text(json.dumps({"run_id": run_id, "broker": name, "broker_version": version}))
    return run


def test_flips_count_only_the_cases_every_run_ran(tmp_path, capsys):
    whole = stored(tmp_path, "whole", {"ACK-01": "pass", "ACK-02": "pass", "QOS-10": "non-strict"})
    narrow = stored(tmp_path, "narrow", {"ACK-01": "fail"})
    assert flips.main([str(whole), str(narrow)]) == 0
    first, *rest = capsys.readouterr().out.splitlines()
    assert first == ("[flips] 2 runs of RabbitMQ 4.0.5: 1 case(s) ran in every run (2 ran in some only, left out); "
                     "1 changed outcome between runs"), first
    assert rest == ["  1/1 flips  ACK-01: pass fail"]


def test_flips_refuse_runs_of_different_brokers_unless_asked(tmp_path, capsys):
    rabbit = stored(tmp_path, "a", {"ACK-01": "pass"})
    garage = stored(tmp_path, "b", {"ACK-01": "fail"}, broker="garagemq 0.1")
    assert flips.main([str(rabbit), str(garage)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "different brokers (RabbitMQ 4.0.5, garagemq 0.1)" in err, err
    assert flips.main([str(rabbit), str(garage), "--across-brokers"]) == 0
    assert "of 2 brokers" in capsys.readouterr().out


def test_diff_prints_the_overlap_and_exits_1_when_cases_differ(tmp_path, capsys):
    stored(tmp_path, "whole", {"ACK-01": "pass", "ACK-02": "pass"})
    stored(tmp_path, "narrow", {"ACK-01": "fail"})
    stored(tmp_path, "again", {"ACK-01": "pass"})
    site = ["--runs", str(tmp_path), "--site", str(tmp_path / "no-site")]
    assert cells.main(["whole", "narrow", *site]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first == ("1 case differs between whole and narrow, of 1 case(s) both ran "
                     "(1 on whole only, 0 on narrow only: not compared)"), first
    assert cells.main(["whole", "again", *site]) == 0
    assert capsys.readouterr().out.startswith("0 cases differ between whole and again, of 1 case(s) both ran")


def test_diff_names_a_missing_run_as_missing(tmp_path, capsys):
    stored(tmp_path, "whole", {"ACK-01": "pass"})
    assert cells.main(["whole", "nosuchrun", "--runs", str(tmp_path), "--site", str(tmp_path / "no-site")]) == 2
    err = capsys.readouterr().err
    assert "no stored run 'nosuchrun'" in err and "must both be" not in err, err
