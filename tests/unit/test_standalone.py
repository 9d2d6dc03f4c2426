"""The repository stands alone: no build machine's paths, no citations of notes it does not contain.

A reader who clones the project must be able to follow every reference: sources are cited by their
``sources.toml`` id or URL, never by a private note, and no file names a folder of the machine it
was written on.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Notes that live outside the repository (the team's reference folder); citing them is a dead end.
PRIVATE_NOTES = re.compile(r"\b(hardware|formulas|crossdc|house-style|setup-notes)\.md\b|episode\.txt|shared/reference")
#: Absolute paths of a build machine (home folders, the workspace, temporary folders).
MACHINE_PATHS = re.compile(r"(?<![\w.])/(?:work|root|home|Users|tmp)/[\w.-]+")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".csv", ".json", ".cfg", ".ini", ".yml", ".yaml", ""}


def tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = [ROOT / name for name in listed.splitlines()]
    return [f for f in files if f.suffix in TEXT_SUFFIXES and f.is_file() and f.name != Path(__file__).name]


def offending_lines(pattern: re.Pattern[str]) -> list[str]:
    found = []
    for path in tracked_text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    return found


def test_no_citation_of_notes_outside_the_repository():
    assert offending_lines(PRIVATE_NOTES) == []


def test_no_absolute_path_of_a_build_machine():
    assert offending_lines(MACHINE_PATHS) == []


def test_the_checks_can_fail():
    assert PRIVATE_NOTES.search("see hardware.md section 9") and MACHINE_PATHS.search("open /work/main/x.py")
    assert not MACHINE_PATHS.search("https://example.org/work/x") and not MACHINE_PATHS.search("a/tmp/b")
