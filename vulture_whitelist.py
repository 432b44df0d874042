"""Names vulture cannot see used: each is read by name from outside Python's references.

`make lint` runs `vulture src tests vulture_whitelist.py`; each line says why a name lives.
"""

from vulture.whitelist_utils import Whitelist

from planegate.freeze import events, sweep_run
from planegate.github import check_runs, event_payload
from planegate.runner.child import main, plugin_api

events.RenewEvent.renewed_at  # a ledger field: its JSON key, read back by name
events.ThawEvent.thawed_at  # a ledger field: its JSON key, read back by name
sweep_run.Proposal.classification  # reported through the proposal's fields
check_runs.CheckOutcome.check_run_id  # what posting returns, as data
event_payload.PullRequest.base_ref  # the event payload's fields, kept whole
event_payload.PullRequest.head_ref
main.prepare  # called from the bootstrap script's string, in the child
plugin_api.PluginEntry.__call__  # a Protocol's signature: the plugin modules' entry functions

harness = Whitelist()
harness._hypothesis_internal_use_seed  # set on a test function, read by Hypothesis
harness._update_current_test_var  # pytest's own function, replaced in the child
harness.dont_write_bytecode  # interpreter flags set in the child (sys)
harness.pycache_prefix
harness.in_initialization  # Hypothesis's own count, raised while its entry points run (child)

codec_test = Whitelist()
codec_test.maybe  # a field of the codec test's record, read back through its type hint
