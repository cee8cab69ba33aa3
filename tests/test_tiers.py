"""The suite's tiers (tests/tiers.py) follow what a test does: a browser test, a test that starts
another process itself or through a helper it calls, and the fast rest."""
from pathlib import Path

from tests.tiers import tier_markers

TESTS = Path(__file__).resolve().parent


def test_a_test_in_tests_ui_is_a_browser_test():
    assert tier_markers(TESTS / "ui" / "test_poll.py", "test_anything", ["page"]) == {"browser"}


def test_a_test_that_starts_a_process_itself_is_in_the_subprocess_tier():
    launch = TESTS / "serving" / "test_launch.py"
    assert tier_markers(launch, "test_two_processes_share_the_pair_a_dead_one_starts_again_and_sigterm_stops_all", []) == {"subprocess"}
    assert tier_markers(launch, "test_serving_processes_reads_num_procs", []) == set()


def test_a_helper_that_starts_a_process_puts_its_callers_in_the_subprocess_tier():
    errors = TESTS / "lab" / "test_errors.py"     # calls its module's _fresh(), which runs an interpreter
    assert tier_markers(errors, "test_each_module_imports_alone_in_a_fresh_interpreter", []) == {"subprocess"}
    assert tier_markers(errors, "test_message_without_public_variant_is_scrubbed", []) == set()


def test_pure_computations_are_in_the_fast_tier():
    assert tier_markers(TESTS / "lab" / "test_analytic.py", "test_seed_table", []) == set()


def test_the_exports_recordings_are_slow():
    assert tier_markers(TESTS / "shell" / "test_export.py", "test_a_recorded_next_round_is_the_services_round",
                        []) == {"slow"}


def test_a_helper_imported_inside_the_test_counts_too():
    device = TESTS / "lab" / "test_device.py"     # imports tests.ui.helpers.served in its body: a server
    assert tier_markers(device, "test_a_lab_served_with_device_cuda_and_no_gpu_serves_on_the_cpu", []) == {"subprocess"}


def test_a_word_in_a_string_or_a_docstring_starts_no_process():
    here = TESTS / "test_tiers.py"      # this module names "subprocess" only in strings
    assert tier_markers(here, "test_a_test_that_starts_a_process_itself_is_in_the_subprocess_tier", []) == set()
    imports = TESTS / "test_imports.py"  # reads `sys.executable` in code it parses, runs nothing
    assert tier_markers(imports, "test_a_subprocess_running_a_project_module_is_found", []) == set()
