"""Splitting a list into pages."""


def page_count(items, size):
    return (len(items) + size - 1) // size


def page(items, number, size):
    """Page `number` (1 for the first page) of `items`, `size` items per page."""
    start = number * size
    return items[start:start + size]
