from slugify import slugify


def test_joins_words():
    assert slugify("one two  three") == "one-two-three"


def test_drops_punctuation():
    assert slugify("hi, there!") == "hi-there"
