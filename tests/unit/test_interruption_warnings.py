"""The interrupt's own exception, seen by a plugin's hook wrapper, is no warning of the run."""

import warnings

from pluggy import PluggyTeardownRaisedWarning


def _pluggy_says(exception: str) -> str:
    return ("A plugin raised an exception during an old-style hookwrapper teardown.\n"
            f"Plugin: allure_listener, Hook: pytest_fixture_post_finalizer\n{exception}\n"
            "For more information see https://pluggy.readthedocs.io/")


def _reported(exception: str) -> list:
    with warnings.catch_warnings(record=True) as seen:  # under the run's filters (pytest's, ours)
        warnings.warn(PluggyTeardownRaisedWarning(_pluggy_says(exception)))
    return seen


def test_the_interrupt_inside_a_hook_wrapper_is_not_reported():
    assert not _reported("RunInterrupted: run interrupted by SIGINT: stopping the brokers")


def test_any_other_exception_inside_a_hook_wrapper_still_is():
    assert _reported("ValueError: a real failure")
