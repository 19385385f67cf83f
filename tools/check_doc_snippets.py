#!/usr/bin/env python3
"""Compiles the C++ examples of Markdown files, so that they stay true to the code.

Every ```cpp block must follow an HTML comment that says what to do with it:

    <!-- compile
    #include "mechanisms/mechanism.hpp"
    namespace arbolito::doc {
    @snippet
    }
    -->
    ```cpp
    struct pas : MechanismDefaults { ... };
    ```

is compiled (`-fsyntax-only`) as the comment's text with the line `@snippet` replaced by
the block (dedented as its fence is); `<!-- not compiled: why -->` leaves a block alone
(a sketch, a template naming files that do not exist). An unmarked block is an error:
each new example chooses.

    tools/check_doc_snippets.py --cxx C++ [--flag F]... FILE.md...
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import textwrap

FENCE = re.compile(r"^([ \t]*)```cpp[^\n]*\n(.*?)^\1```[ \t]*$", re.M | re.S)
MARK = re.compile(r"<!--\s*(compile\b|not compiled:)(.*?)-->\s*$", re.S)


def blocks(text):
    """(line, marker kind, marker text, code) for each ```cpp block."""
    for m in FENCE.finditer(text):
        before = text[:m.start()].rstrip()
        line = text.count("\n", 0, m.start()) + 1
        code = textwrap.dedent(m.group(2))
        mark = MARK.search(before[before.rfind("<!--"):]) if before.endswith("-->") else None
        if not mark:
            yield line, None, "", code
        else:
            yield line, mark.group(1), mark.group(2), code


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--flag", action="append", default=[])
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    failed = compiled = skipped = 0
    for path in a.files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line, kind, wrapper, code in blocks(text):
            where = f"{path}:{line}"
            if kind is None:
                print(f"FAIL {where}: a ```cpp block without <!-- compile ... --> or <!-- not compiled: why -->")
                failed += 1
                continue
            if kind.startswith("not"):
                skipped += 1
                continue
            if "@snippet" not in wrapper:
                print(f"FAIL {where}: the compile comment has no @snippet line")
                failed += 1
                continue
            source = wrapper.replace("@snippet", code)
            with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as tu:
                tu.write(f'#line 1 "{where} (with its compile comment)"\n' + source)
            r = subprocess.run([a.cxx, "-std=c++17", "-fsyntax-only", *a.flag, tu.name], capture_output=True, text=True)
            os.unlink(tu.name)
            if r.returncode != 0:
                print(f"FAIL {where}: does not compile:\n{r.stderr}")
                failed += 1
            else:
                print(f"ok   {where}")
                compiled += 1
    print(f"{compiled} compiled, {skipped} marked as not compiled, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
