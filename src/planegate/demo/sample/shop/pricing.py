"""Prices are integer cents."""


def total(cents: list[int]) -> int:
    result = 0
    for amount in cents:
        result += amount
    return result


def apply_discount(cents: int, percent: int) -> int:
    return int(cents * (100 - percent) / 100)


def receipt(items: list[tuple[str, int]]) -> str:
    lines = [f"{name:<10}{price:>8}" for name, price in items]
    lines.append(f"{'TOTAL':<10}{total([price for _, price in items]):>8}")
    return "\n".join(lines) + "\n"
