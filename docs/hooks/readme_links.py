"""mkdocs hook: the README's front part on the site's first page, with its links made site-relative.

`docs/index.md` shows the README's front part (one text for GitHub and the site). The README links
to `docs/x.md` from the repository root, where the site's page sits beside `x.md`; pymdownx.snippets
cannot rewrite links, so this hook inserts the part itself, prefix removed, before mkdocs checks links.
"""

import re
from pathlib import Path

_INCLUDE = '--8<-- "README.md:front"'
_SECTION = re.compile(r"--8<-- \[start:front\][^\n]*\n(.*?)\n[^\n]*--8<-- \[end:front\]", re.S)
_DOCS_LINK = re.compile(r"\]\(docs/")


def on_page_markdown(markdown, page, config, **_):
    if _INCLUDE not in markdown:
        return markdown
    readme = (Path(config.config_file_path).parent / "README.md").read_text(encoding="utf-8")
    found = _SECTION.search(readme)
    if found is None:
        raise ValueError("README.md has no '--8<-- [start:front]' ... '[end:front]' section")
    return markdown.replace(_INCLUDE, _DOCS_LINK.sub("](", found.group(1)))
