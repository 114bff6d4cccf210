from pager import page, page_count


def test_page_count():
    assert page_count(list(range(10)), 3) == 4


def test_empty():
    assert page_count([], 3) == 0
