"""Fractions as (numerator, denominator) pairs of ints."""
from math import gcd


def reduce(fraction):
    """The fraction in lowest terms, with a positive denominator."""
    numerator, denominator = fraction
    if denominator == 0:
        raise ZeroDivisionError("denominator is zero")
    divisor = gcd(numerator, denominator)
    if denominator < 0:
        divisor = -divisor
    return (numerator // divisor, denominator // divisor)


def add(a, b):
    numerator = a[0] * b[1] + b[0] * a[1]
    denominator = a[1] * b[1]
    return (numerator, denominator)


def mul(a, b):
    return reduce((a[0] * b[0], a[1] * b[1]))
