"""The tour in docs/python.md runs as written: every ```sh and ```python block under its
"A ... user" sections, in order, in a scratch folder (sh blocks need their tools, e.g. bart)."""
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "python.md")


def sections():
    text = open(DOC).read()
    out = {}
    for m in re.finditer(r"^## (An? [^\n]*user[^\n]*)\n(.*?)(?=^## |\Z)", text, re.S | re.M):
        blocks = re.findall(r"```(sh|python)\n(.*?)```", m.group(2), re.S)
        out[m.group(1)] = blocks
    return out


SECTIONS = sections()


def test_the_tour_has_its_sections():
    assert len(SECTIONS) == 3, list(SECTIONS)


@pytest.mark.parametrize("title", sorted(SECTIONS))
def test_tour_section_runs(title, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for lang, code in SECTIONS[title]:
        if lang == "sh":
            for tool in sorted({ln.split()[0] for ln in code.splitlines() if ln.strip()}):
                if shutil.which(tool) is None:
                    pytest.skip("%s is not installed" % tool)
            subprocess.run(["bash", "-euo", "pipefail", "-c", code], check=True)
        else:
            if "torch" in code:
                pytest.importorskip("torch")
            if "skimage" in code:
                pytest.importorskip("skimage")
            exec(compile(code, "%s (docs/python.md)" % title, "exec"), {"__name__": "tour"})
