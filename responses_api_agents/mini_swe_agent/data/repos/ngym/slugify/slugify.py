"""URL slugs from titles."""
import re


def slugify(title):
    """Words of the title joined by hyphens: "Hello World" -> "hello-world"."""
    words = re.findall(r"[A-Za-z0-9]+", title)
    return "-".join(words)
