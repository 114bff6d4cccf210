import pytest

from fractions_calc import add, mul, reduce


def test_reduce():
    assert reduce((6, -8)) == (-3, 4)


def test_reduce_zero_denominator():
    with pytest.raises(ZeroDivisionError):
        reduce((1, 0))


def test_mul_reduces():
    assert mul((2, 3), (3, 4)) == (1, 2)


def test_add_values():
    numerator, denominator = add((1, 2), (1, 3))
    assert numerator * 6 == denominator * 5
