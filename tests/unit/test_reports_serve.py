"""The Allure report's two layouts and `reports serve`, which the default one needs: a
browser fetches the report's data files only from a web server, so the site is served on
127.0.0.1, and a bad site or a taken port is one line."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from amqp_conformance.reports import allure_report, serve


@pytest.mark.parametrize("layout, single", [("files", "false"), ("single", "true")])
def test_each_layout_is_allure_s_single_file_option(tmp_path, layout, single):
    config = allure_report.write_config(tmp_path / "allure", {}, tmp_path / "history.jsonl", "t", layout)
    assert f"singleFile: {single}" in config.read_text()


def test_the_default_layout_opens_fast_over_http():
    assert allure_report.DEFAULT_LAYOUT == "files" and set(allure_report.LAYOUTS) == {"files", "single"}


def test_an_unknown_layout_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError, match="no Allure layout 'pdf'"):
        allure_report.generate(tmp_path / "staged", tmp_path / "allure", {}, [], layout="pdf")
    assert not (tmp_path / "allure").exists()


def test_the_site_is_served_on_loopback_only(tmp_path):
    (tmp_path / "index.html").write_text("<p>matrix</p>")
    (tmp_path / "allure" / "data").mkdir(parents=True)
    (tmp_path / "allure" / "data" / "case.json").write_text("{}")
    httpd = serve.server(tmp_path, 0)
    serve.in_background(httpd)
    try:
        url = serve.url_of(httpd)
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "allure/data/case.json", timeout=10) as answer:
            assert answer.read() == b"{}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_folder_without_a_built_site_is_one_line(tmp_path, capsys):
    assert serve.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no built site" in err and "reports build" in err


def test_a_port_already_taken_is_one_line(tmp_path, capsys):
    (tmp_path / "index.html").write_text("<p>matrix</p>")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert serve.main([str(tmp_path), "--port", str(taken.getsockname()[1])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot listen on 127.0.0.1:" in err and "--port" in err
