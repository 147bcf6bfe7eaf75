"""The tiers (tests/tiers.py): every test that starts a process or a browser
is marked for it, so the fast tier (``make test-fast``, the unmarked tests)
starts none."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tiers import BROWSER_FIXTURES, PROCESS_FIXTURES, UnmarkedProcessError

TESTS = Path(__file__).resolve().parents[1]


def test_an_unmarked_test_that_starts_a_process_fails_naming_the_marker():
    with pytest.raises(UnmarkedProcessError, match="is not marked processes"):
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])


def test_an_unmarked_test_may_run_a_command_to_its_end():
    done = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True)
    assert done.stdout == "42\n"
    assert subprocess.check_output([sys.executable, "-c", "print('ok')"], text=True) == "ok\n"


@pytest.mark.processes
def test_a_marked_test_starts_processes():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    assert child.wait(timeout=30) == 0


def test_every_fixture_the_tiers_look_for_exists():
    """A renamed fixture would stop marking the tests that use it."""
    sources = "\n".join(path.read_text() for path in TESTS.rglob("*.py"))
    for name in PROCESS_FIXTURES | BROWSER_FIXTURES:
        assert re.search(rf"@pytest\.fixture[^\n]*\ndef {name}\(", sources), name


def test_tests_using_a_process_or_browser_fixture_are_left_out_of_the_fast_tier(pytester):
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture(scope="session")
        def refserver_process():
            yield "a server"

        @pytest.fixture
        def refserver(refserver_process):
            return refserver_process

        @pytest.fixture
        def browser():
            yield "chromium"

        @pytest.fixture
        def page(browser):
            return browser
        """
    )
    pytester.makepyfile(
        test_some="""
        def test_in_process():
            pass

        def test_through_another_fixture(refserver):
            pass

        def test_with_a_page(page):
            pass
        """
    )
    plugins = ["-p", "tests.tiers", "-p", "no:django", "-p", "no:cacheprovider", "-p", "no:asyncio"]
    fast = pytester.runpytest(*plugins, "-m", "not processes and not browser")
    fast.assert_outcomes(passed=1, deselected=2)
    assert fast.stdout.lines and "test_some.py ." in "\n".join(fast.stdout.lines)
    pytester.runpytest(*plugins, "-m", "processes").assert_outcomes(passed=1, deselected=2)
    pytester.runpytest(*plugins, "-m", "browser").assert_outcomes(passed=1, deselected=2)
