#!/usr/bin/env python3
"""check_links.py TOP: every relative link of README.md and docs/*.md
resolves: the file or folder it names exists in the checkout, and a
#fragment names a heading of the Markdown page it points to (GitHub's
anchors: lower case, punctuation dropped, blanks to '-').  Links to
other sites are not followed (no network here).  So a page that moves,
or a heading that is renamed, cannot leave a reader at a dead link."""

import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*```")


def anchors(path):
    """GitHub's anchors of the headings of Markdown file path."""
    out, seen, fenced = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                fenced = not fenced
                continue
            m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))
            a = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else "%s-%d" % (a, n))
    return out


def links(path):
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
                yield number, m.group(1)


def main():
    top = os.path.abspath(sys.argv[1])
    pages = [os.path.join(top, "README.md")]
    docs = os.path.join(top, "docs")
    pages += sorted(os.path.join(docs, p) for p in os.listdir(docs) if p.endswith(".md"))
    bad = checked = 0
    for page in pages:
        for number, target in links(page):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # another site, mail
            checked += 1
            path, _, fragment = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            where = "%s:%d" % (os.path.relpath(page, top), number)
            if not os.path.exists(dest):
                print("FAIL: %s: %s: no such file" % (where, target))
                bad += 1
            elif fragment and dest.endswith(".md") and fragment not in anchors(dest):
                print("FAIL: %s: %s: no heading with anchor '%s'" % (where, target, fragment))
                bad += 1
    print("%d relative links in %d pages, %d dead" % (checked, len(pages), bad))
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
