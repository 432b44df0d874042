"""A YAML tree with an alias is composed from its events."""

from __future__ import annotations

import pytest

from planegate import loading
from planegate.loading import yamldoc


def test_a_tree_with_an_alias_is_composed_from_its_events() -> None:
    text = "a: &x [1, 2]\nb: *x\n"
    with pytest.raises(yamldoc._Aliased):
        yamldoc._compose(yamldoc._NativeLoader, text, loading.CONFIG)
    assert yamldoc.yaml_document(text).value == {"a": [1, 2], "b": [1, 2]}
