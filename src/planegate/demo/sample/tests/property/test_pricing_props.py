from hypothesis import given
from hypothesis import strategies as st

from shop.pricing import apply_discount, total


@given(st.lists(st.integers(min_value=0, max_value=10**6)))
def test_total_is_the_sum(cents):
    assert total(cents) == sum(cents)


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=100))
def test_discount_never_raises_the_price(cents, percent):
    discounted = apply_discount(cents, percent)
    assert 0 <= discounted <= cents
